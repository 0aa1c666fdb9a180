/**
 * The clocks model's named situations: the rows of the clocks coverage table (`harness/Coverage.ts`).
 *
 * A verdict says what held in the scenarios that ran; these names say what the scenarios exercised,
 * finer than the rules a step credits. Each is decided from the model alone (the state before, the
 * operation and the outcome the step was judged by), never from the implementation, so the table
 * means the same for every implementation bound to the subject. The races are the one exception the
 * harness decides: a race counts as it was realised (`raceSituation`, `scheduleRaceSituation`), so an
 * engine the harness could not hold at a fire's start shows `fireRaceHeld` as 0 rather than a race
 * that never ran.
 */
import { FAULT_SITUATIONS } from "../../harness/Faults.ts"
import { keyOf } from "./keys.ts"
import type { Command, ModelState, Operation, StepOutcome } from "./types.ts"

/** Every situation, in the order the coverage table lists them. */
export const CLOCKS_SITUATIONS = [
  // C8 scheduling, C9 arming
  "scheduleNew",
  "scheduleReplayed",
  "scheduleRaceOneAfterOther",
  "scheduleRaceOverlapped",
  "armedPastDueFiresAtOnce",
  "rearmAfterRewind",
  "rearmKeptInBackoff",
  // C5-C7 deferreds
  "completeCreated",
  "completeExisting",
  "completeIfWaitingMatched",
  "completeIfWaitingNotWaiting",
  "completeIfWaitingOtherReason",
  "completeIfWaitingOtherToken",
  "completeIfWaitingStoppedAtBegin",
  "resultNone",
  "resultFirstConsumption",
  "resultReplayed",
  "resultRaceHeld",
  "resultRaceOverlapped",
  // C10 fires and the idempotent fire
  "fireCompletesClock",
  "fireFindsClockCompleted",
  "fireFindsCompletion",
  "severalFiresAtOneInstant",
  // C11 retries
  "fireFailedRetried",
  "fireRetryAtBackoffCap",
  "fireRetrySucceeded",
  // concurrent fires of one clock, as the harness realised them
  "fireRaceAtOnce",
  "fireRaceHeld",
  "fireRaceOverlapped",
  // C12 sweeps and restarts
  "sweepRearmsPending",
  "sweepWakesCompletion",
  "sweepOtherFlow",
  "sweepOnSecondProcess",
  "restartRecovers",
  // C2 the journal's identities, C3 the lossy channel
  "journalDuplicate",
  "journalConflict",
  "flushWhileLossyLatched",
  // C9 rewinds (time travel)
  "rewindKeepingRecords",
  "rewindDroppingRecords",
  // C13 effect boundaries
  "effectSucceeded",
  "effectUnknown",
  // C4 storage faults, by how they struck, and durable emits that failed
  "faultInsideTransaction",
  "faultAfterCommit",
  "faultLostReply",
  "faultCommitRefused",
  "faultStatementFailed",
  "faultReadFailed",
  "durableEmitFailed"
] as const

/** One clocks situation. */
export type ClocksSituation = typeof CLOCKS_SITUATIONS[number]

/** The storage fault phases a clocks fault may strike with, each a clocks situation (`harness/Faults.ts`' names). */
export const CLOCKS_FAULT_SITUATIONS: Readonly<Record<"inside" | "afterCommit" | "lostReply" | "commitRefused" | "statementFails" | "readFails", ClocksSituation>> = FAULT_SITUATIONS

/** Situations only an adapter with these capabilities can reach: an overlapped race needs two open transactions that lock rows. */
export const CLOCKS_SITUATION_NEEDS = {
  scheduleRaceOverlapped: ["independentConnections", "rowLocks"],
  fireRaceOverlapped: ["independentConnections", "rowLocks"],
  resultRaceOverlapped: ["independentConnections", "rowLocks"]
} as const

/** The success value of a call's result, if it succeeded. */
const valueOf = (outcome: StepOutcome): unknown => (outcome.result as { readonly _tag?: string; readonly value?: unknown } | null)?.value

/**
 * Why C6 answered `NotWaiting`, each half of its "exactly that reason and token" on its own: the run
 * waits for nothing, for another reason, or for this reason under another token.
 */
const notWaitingCause = (before: ModelState, command: { readonly exec: string; readonly reason: string }): ClocksSituation => {
  const waiting = before.waiting[command.exec]
  return waiting === undefined ? "completeIfWaitingNotWaiting" : waiting.reason !== command.reason ? "completeIfWaitingOtherReason" : "completeIfWaitingOtherToken"
}

/** The situations of the command itself (the interpreter notes the rest in `Run.noted`). */
const commandSituations = (before: ModelState, operation: Operation, outcome: StepOutcome): Array<ClocksSituation> => {
  const command = operation.command
  const succeeded = (outcome.result as { readonly _tag?: string } | null)?._tag === "Success"
  switch (command.op) {
    case "scheduleClock":
      return [before.clocks[keyOf(command.exec, command.clock)] === undefined ? "scheduleNew" : "scheduleReplayed"]
    case "deferredDone":
      return succeeded ? [before.deferreds[keyOf(command.exec, command.deferred)] === undefined ? "completeCreated" : "completeExisting"] : []
    case "deferredDoneIfWaiting":
      // A run that stopped waiting during the call is the harness's situation (`completeIfWaitingStoppedAtBegin`).
      if (!succeeded || command.stopsWaiting === "atBegin") return []
      return valueOf(outcome) === "NotWaiting" ? [notWaitingCause(before, command)] : ["completeIfWaitingMatched"]
    case "deferredResult": {
      const row = before.deferreds[keyOf(command.exec, command.deferred)]
      if (!succeeded) return []
      return [row === undefined ? "resultNone" : row.consumedAtMs === null ? "resultFirstConsumption" : "resultReplayed"]
    }
    case "sweep":
      return [...(command.process === "B" ? ["sweepOnSecondProcess" as const] : []), ...(command.withFlow && command.flow !== undefined && command.flow !== "flow" ? ["sweepOtherFlow" as const] : [])]
    case "restart":
      return ["restartRecovers"]
    case "rewind":
      return [command.keepRecords ? "rewindKeepingRecords" : "rewindDroppingRecords"]
    case "effect":
      return succeeded ? ["effectSucceeded"] : outcome.result !== null && (outcome.result as { readonly error?: unknown }).error === "ScriptedEffectError" ? ["effectUnknown"] : []
    default:
      return []
  }
}

/**
 * The situations one model step reached, from the outcome it was judged by (`before` is the state the
 * step started from). A crash's restart counts as `restartRecovers` too: its registration sweep ran.
 */
export const clocksSituations = (before: ModelState, operation: Operation, outcome: StepOutcome): ReadonlyArray<ClocksSituation> => {
  const found = new Set<ClocksSituation>([...commandSituations(before, operation, outcome), ...outcome.noted])
  if (outcome.crashed) found.add("restartRecovers")
  if (before.lossyLatched && outcome.flushes > 0) found.add("flushWhileLossyLatched")
  return CLOCKS_SITUATIONS.filter((situation) => found.has(situation))
}

/**
 * The situation of a fire race as the harness realised it: `outcome` is the prediction the step was
 * judged by (its race is the one that ran: none when the race was not realised, lag 0 when its hold
 * was dropped), `overlapped` whether the two transactions were seen overlapping.
 */
export const raceSituation = (outcome: StepOutcome, overlapped: boolean): ReadonlyArray<ClocksSituation> => {
  if (outcome.race === null) return []
  if (overlapped) return ["fireRaceOverlapped"]
  return [outcome.race.lagMs > 0 ? "fireRaceHeld" : "fireRaceAtOnce"]
}

/**
 * The situation of a reading race as the harness realised it: the held read paused before its
 * transaction (`resultRaceHeld`), or inside it before its first write (`resultRaceOverlapped`), while
 * the other process made the deferred's first consumption at a later time; none when the held read ran
 * through or committed first (or in an unknown order), or the deferred was absent or already consumed.
 */
export const resultRaceSituation = (
  before: ModelState,
  command: Command,
  realised: { readonly held: boolean; readonly overlapped: boolean; readonly heldCommittedFirst: boolean; readonly orderUnknown: boolean } | null
): ReadonlyArray<ClocksSituation> => {
  if (realised === null || !realised.held || realised.heldCommittedFirst || realised.orderUnknown || command.op !== "resultRace" || command.lagMs <= 0) return []
  const row = before.deferreds[keyOf(command.exec, command.deferred)]
  if (row === undefined || row.consumedAtMs !== null) return []
  return [realised.overlapped ? "resultRaceOverlapped" : "resultRaceHeld"]
}

/**
 * The situation of a scheduling race as the harness realised it: the second ran into the first's open
 * transaction, or ran after the first committed; none when the two ran unordered.
 */
export const scheduleRaceSituation = (realised: { readonly ordered: boolean; readonly overlapped: boolean } | null): ReadonlyArray<ClocksSituation> =>
  realised === null || !realised.ordered ? [] : [realised.overlapped ? "scheduleRaceOverlapped" : "scheduleRaceOneAfterOther"]
