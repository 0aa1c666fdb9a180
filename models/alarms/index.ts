/**
 * Reference model of the `alarms` subject (effect-cf 0.52 `DurableObjectAlarm`, reference page
 * `shared/reference/alarms.md`, rules R1-R29, edge cases E1-E10, historical bugs H1-H6).
 * Pure, synchronous, JSON in and out; porcupine style: `init`, `step`, `describeOperation`,
 * `describeState`, plus `observableState` for comparison.
 *
 * PUBLIC API (everything below is exported from this file)
 *
 *   init(options?: InitOptions): ModelState
 *     options.configuration   ScheduleConfigurationInput (ms): the reference present when the service is built
 *     options.legacyRows      rows of an older layout (no wake_at; with their attempts row, if any) that must keep
 *                             firing (R3); migrated: wake_at = max(run_at, retry_at ?? run_at), attempt state kept
 *     options.platformAlarmMs platform alarm before the first transaction (default: smallest legacy wake / null)
 *     options.knownTags       typed definitions (R29): unknown tags are InvalidAlarmRefError / a dispatch failure
 *
 *   step(state, operation: Operation): StepOutcome       (never mutates `state`)
 *     The clock is `nowMs` for the whole call (handler writes, retries and acknowledgements all read it):
 *     do not advance the virtual clock inside a handler.
 *     Operation (plain JSON; `nowMs` = virtual clock at the call; durations in ms):
 *       { kind: "scheduleAlarm" | "scheduleAlarmEarlier", nowMs, input: {tag,id,payload,runAtMs,repeatEveryMs?,progress?}, fault?, reporterFails? }
 *       { kind: "cancelAlarm", nowMs, ref: {tag,id}, fault? }
 *       { kind: "getAlarmStatus", ref }
 *       { kind: "transaction", nowMs, mutations: [{kind, input|ref, misuse?: "forkedFiber"|"afterTransaction"}], closureFails?, fault?, reporterFails? }
 *       { kind: "processDueAlarms", nowMs, options?: {limit?, retryFailedAfterMs?, withoutOnFailure?}, handlers?: [{tag,id,script}], fault?, reporterFails? }
 *           script: { writes?: (Mutation | {kind:"transaction", mutations, closureFails?})[],   // each write = its own transaction
 *                     outcome?: "succeed"|"fail",                                           // default succeed; a failing write => fail
 *                     onFailure?: {kind:"none"|"returnsVoid"|"returnsNull"|"unknownMode"|"retry"|"skipAndAdvanceRepeat"|"fails"} | {kind:"retryAfter", retryFailedAfterMs},
 *                     forkedWrite?: Mutation }   // attempted after processDueAlarms returned (pass ended)
 *           racer?: { mutation, point, occurrence }   // an external call landing between the batch's transactions (race.ts)
 *       { kind: "configure", configuration }   // the ambient ScheduleConfiguration reference changes
 *       { kind: "rebuildService", knownTags? } // restart: captured defaults := ambient; storage kept; knownTags: new typed definitions (R29)
 *     fault: { transaction: n (1-based among this step's storage transactions), phase }
 *       "inside"        process crash before commit: nothing of tx n commits, the call stops, result Crashed
 *       "afterCommit"   crash after tx n committed, before its park reports: reports lost forever (R27)
 *       "setAlarmFails" the platform-alarm write fails: tx n rolls back, StorageOperationError(setAlarmFailed)
 *       "lostReply"     tx n commits, the caller sees StorageOperationError(lostReply): no park reports
 *       "commitRefused" tx n's closure and reconcile ran, then the database refused its COMMIT: it rolls
 *                       back (platform alarm kept, R6), no park reports (R27), StorageOperationError(commitRefused);
 *                       no crash, no rebuild: the operation goes on as after any failed transaction (a
 *                       refused acknowledgement or failure write aborts the batch, as upstream's
 *                       `yield* transaction(...)` propagates its error; a refused handler write fails the handler)
 *       A crash also rebuilds the service (captured := ambient), as the harness restarts it.
 *       Transaction order of processDueAlarms, per due row: handler writes (one tx each), then
 *       `acknowledge:<id>` or `failure:<id>`; after the batch `reconcile`; then `forked:<ref>` writes.
 *       (A crash inside a handler's own write is modelled as a process crash; note upstream's handler
 *       wrapper catches defects, so prefer crash points in acknowledge/failure/reconcile/external txs.)
 *       External schedule/cancel/transaction run exactly one transaction.
 *     StepOutcome:
 *       state          next ModelState
 *       result         {_tag:"Success", value} | {_tag:"Failure", error:{_tag, reason}} | {_tag:"Crashed", transaction, phase}
 *                      value: null (schedule/cancel/configure/rebuild) | AlarmStatus|null (getAlarmStatus)
 *                             | {mutations: MutationResult[]} (transaction) | {handled, failed, parked} (processDueAlarms)
 *                      handled: AlarmEvent {id, tag, payload, scheduledAtMs}[]; failed: {tag, id, event|null, causeTag}[];
 *                      parked: {attempts, retryAtMs}[] (content-free)
 *                      error._tag: InvalidScheduleConfigurationError | InvalidAlarmRefError | InvalidRepeatEveryError |
 *                             InvalidAlarmPayloadError | StorageOperationError (reason detachedWork | inactiveHandle |
 *                             setAlarmFailed | lostReply | commitRefused) | InvalidProcessDueAlarmsOptionsError | ClosureFailure | OnFailureFailure
 *       rules, why     attribution of `result` (e.g. a replay drop: rules ["R11"])
 *       predictions    [{observable, expected, rules, why}] for "result", "platformAlarm", "reporterCalls",
 *                      and for dispatch "handled", "failed", "parked", "handled[i]", "failed[i]", "parked[i]", "forkedWrite[i]"
 *       situations     Situation names reached (coverage); SITUATION_RULES[s] gives their rules
 *       transactions   [{ordinal, label, outcome, platformAlarmMs}] in order (platform alarm after each commit)
 *       reporterCalls  [{attempts, retryAtMs, reporterFailed}] made during this step (state.reporterLog has all)
 *       forkedWrites   [{ok, error}] of handler-forked writes
 *
 *   predictStatuses(state): [{storageId, status: {attempts, parked, runAtMs, retryAtMs}|null, rules, why}]
 *   statusOf(state, storageId), observableState(state) (rows minus revision + platform alarm), observableJson
 *   describeOperation(op), describeState(state): one-liners for reports
 *   storageIdOf({tag, id}) = "effect-cf-alarm:" + encodeURIComponent(tag) + ":" + encodeURIComponent(id)
 *   UNENCODABLE_PAYLOAD_KEY: a payload object with this key stands for a non-JSON value (-> InvalidAlarmPayloadError)
 *   resolveConfiguration, retryDelayMs and the default constants.
 *
 * Seed-over-page decisions (upstream 0.52 behaviour): an invalid `progress` (not a non-negative safe
 * integer) or a `runAtMs` that is not a safe integer (shipped implementation's check) is InvalidAlarmRefError;
 * cancel reads no configuration and is not pass-checked (a forked cancel after the pass succeeds);
 * an invalid action `retryFailedAfter` reschedules with the base delay and then fails the call with
 * InvalidProcessDueAlarmsOptionsError; an aborted batch skips the final reconcile transaction.
 */
export { storageIdOf, ALARM_STORAGE_ID_PREFIX, type AlarmRef } from "./storageId.ts"
export {
  resolveConfiguration,
  retryDelayMs,
  MIN_RETRY_DELAY_MS,
  UNCHANGED_ATTEMPT_BUDGET,
  PARKED_RETRY_DELAY_MS,
  MIN_REPEAT_INTERVAL_MS,
  DEFAULT_MIN_REPEAT_INTERVAL_MS,
  type ScheduleConfigurationInput,
  type ResolvedScheduleConfiguration,
  type ConfigurationLayers
} from "./configuration.ts"
export {
  init,
  readRow,
  platformAlarmFor,
  assertRowInvariants,
  type ModelState,
  type ScheduledRow,
  type AttemptsRow,
  type RowView,
  type LegacyRow,
  type LegacyAttempts,
  type InitOptions,
  type ReporterCall,
  type Provenance
} from "./state.ts"
export {
  UNENCODABLE_PAYLOAD_KEY,
  type Operation,
  type ProcessDueAlarmsOperation,
  type ScheduleOperation,
  type TransactionOperation,
  type ScheduleInput,
  type Mutation,
  type TransactionMutation,
  type TransactionFault,
  type HandlerScript,
  type HandlerScriptEntry,
  type HandlerWrite,
  type OnFailureScript,
  type ProcessOptions
} from "./operations.ts"
export type {
  ModelResult,
  ModelError,
  ModelErrorTag,
  StorageFailureReason,
  AlarmEvent,
  FailedDispatch,
  ParkedReport,
  DispatchResult,
  AlarmStatus,
  MutationResult,
  ForkedWriteOutcome
} from "./results.ts"
export { step, type StepOutcome, type Prediction } from "./step.ts"
export { operationAlternatives, struckReadAlternatives } from "./alternatives.ts"
export { type DispatchRacePoint, type DispatchRacer, DISPATCH_RACE_POINTS, RACER_RULES, type RacerOutcome } from "./race.ts"
export type { TransactionRecord } from "./run.ts"
export { SITUATION_RULES, type Situation } from "./situations.ts"
export { statusOf, predictStatuses, observableState, observableJson, type ObservableState, type ObservableRow, type StatusPrediction } from "./status.ts"
export { describeOperation, describeState } from "./describe.ts"
export { DEFAULT_PROCESS_DUE_ALARMS_LIMIT } from "./validation.ts"
export { alarmsModel, ALARMS_MODEL_NAME } from "./referenceModel.ts"
