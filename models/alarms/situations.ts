/**
 * Situations: named requirement-relevant states a step reached (coverage, like Antithesis `Sometimes`).
 * `SITUATION_RULES` maps each to the rules it exercises, so a property can credit requirements with
 * `requirementsForRules(SITUATION_RULES[s])` from `spec/alarms.ts`.
 */

/** Rules exercised by each situation. */
export const SITUATION_RULES = {
  invalidConfigurationRejected: ["R1", "R8"],
  invalidRefRejected: ["R8"],
  invalidRepeatRejected: ["R8", "H2"],
  invalidPayloadRejected: ["R8"],
  invalidProgressRejected: ["R10"],
  unknownTagRejected: ["R29"],
  externalEnrollmentReset: ["R13", "R14"],
  replayDrop: ["R11", "E1"],
  budgetResetByGreaterCursor: ["R11", "R12", "R13"],
  sourceProgressedReset: ["R12", "R13"],
  selfRearmCharged: ["R13", "H2"],
  chargedOncePerPass: ["R13"],
  nonForwardCursorInPassCharged: ["E1", "R11", "R13"],
  newIdInheritsSourceAttempts: ["R13"],
  parkedStaysParked: ["R13", "R14", "H5"],
  parkedUnderRaisedBudget: ["R14", "H5"],
  farFutureSelfRearm: ["E3", "R13", "R15"],
  earlierMinMergeKeptExisting: ["R16", "E4"],
  earlierMinMergeMovedEarlier: ["R16"],
  earlierMinMergeTie: ["R16"],
  newParkedEpisode: ["R14", "R18"],
  parkReported: ["R27", "R18", "E8"],
  parkReportSkipped: ["R27", "E9"],
  parkReportLost: ["R27"],
  reporterFailed: ["R27"],
  cancelForgetsState: ["R19", "E2"],
  dispatchedInOrder: ["R21"],
  limitLeftover: ["R21", "E10"],
  backingOffRowNotBlocking: ["R21", "H6"],
  staleRowSkipped: ["R22", "E5"],
  legacyRowFired: ["R3"],
  undecodablePayloadFailed: ["R22", "R29"],
  unknownStoredTagFailed: ["R29"],
  // A tag redeployed with a narrower payload schema (numbers only) over rows stored before.
  narrowedPayloadFailed: ["R29"],
  narrowedPayloadRejected: ["R29", "R8"],
  oneShotAcknowledged: ["R23"],
  repeatAcknowledged: ["R23", "H2"],
  repeatNoCatchUp: ["R23", "H2"],
  acknowledgementNoOp: ["R23", "E6", "H1"],
  failureRescheduled: ["R24", "R25", "R2"],
  failureParked: ["R25", "R14", "R2"],
  failureRescheduleSkipped: ["R25"],
  retryFailedAfterUsed: ["R20", "R24"],
  invalidActionDelayFellBack: ["R24"],
  skipAndAdvanceOneShotDeleted: ["R24", "E7"],
  skipAndAdvanceRepeat: ["R24", "R23"],
  onFailureFailed: ["R24", "H3"],
  defaultFailureActionRetried: ["R20", "R24"],
  invalidOptionsRejected: ["R20"],
  detachedWriteRejected: ["R9", "H4"],
  forkedCancelAfterPass: ["R9", "H4"],
  inactiveHandleRejected: ["R5", "H4"],
  closureFailureRolledBack: ["R4"],
  crashInsideTransaction: ["R4", "R6"],
  crashAfterCommit: ["R4", "R27"],
  setAlarmFailureRolledBack: ["R6"],
  lostReply: ["R4", "R27"],
  commitRefusedRolledBack: ["R4", "R6"],
  statementFailedRolledBack: ["R4", "R6"],
  refusedParkNotReported: ["R27", "R4"],
  // A read outside any transaction failed (harness `readFails`): a storage failure, never swallowed.
  faultReadFailed: ["R21", "R22", "R27", "R28"],
  platformAlarmSet: ["R6"],
  platformAlarmDeleted: ["R6"],
  serviceRebuilt: ["R1"],
  // Boundaries and combinations (boundaries.ts): coverage of the generators' targeted paths.
  crossFieldConfigurationRejected: ["R1"],
  fractionalDurationRoundedUp: ["R1", "R8", "R20"],
  repeatAtFloorAccepted: ["R8", "R23"],
  twoInvalidInputsRejected: ["R8", "R20"],
  retryDelayCapped: ["R2", "R25"],
  dueAtExactWake: ["R21"],
  ownRowCancelledThenRescheduled: ["R13", "R22"],
  // Reached by the liveness phase (properties/alarms/livenessPhase.ts), not by a model step.
  liveDeliveryDispatchedDue: ["R21", "R25", "R26", "R6", "E10", "H3"],
  redeliveryRearmed: ["R6", "R4", "R26", "E10", "H6"]
} as const satisfies Record<string, ReadonlyArray<string>>

/** A situation name. */
export type Situation = keyof typeof SITUATION_RULES
