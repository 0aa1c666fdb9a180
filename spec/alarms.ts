/**
 * Requirement catalog of the `alarms` subject (reference page `alarms.md`: rules R1-R29, edge cases
 * E1-E10, historical bugs H1-H6). ALM-001..029 follow R1..R29, ALM-030..039 follow E1..E10, and
 * ALM-040..049 are the cross-cutting guarantees named in the issue (budget reset, park reporting,
 * platform alarm, handler writes, timeline, dispatch order, rejection, migration, handles, repeats),
 * and ALM-050..051 the liveness requirements checked after the fault window (every due alarm
 * eventually dispatches; the scheduler always re-arms: R6, R26, E10 with R21, R25/H3 and R4, H6),
 * and ALM-052..053 the races of `alarms/race` (an external call during a handler pass; scheduler
 * transactions on independent connections serialize, which needs independent connections and row locks).
 * ALM-054 cites the seed (upstream's `DurableObjectAlarm.ts` and `DefinedAlarms` trace each operation
 * under their own span names), on which the reference page has no rule, as POL-013 does for the pool.
 */
import { type Attributor, makeAttributor } from "../harness/Attribution.ts"
import type { Requirement } from "./Requirement.ts"

const SINCE = "0.1.0"
/** Suite version that added the liveness requirements ALM-050 and ALM-051. */
const LIVENESS_SINCE = "0.3.0"
/** Suite version that added the race requirements ALM-052 and ALM-053. */
const RACE_SINCE = "0.5.0"

/** The rule ALM-054 cites: the seed's span names (no rule of the reference page fixes them). */
export const ALARMS_SPAN_RULE = "seed DurableObjectAlarm.ts"

const alarm = (id: string, title: string, text: string, rules: ReadonlyArray<string>, since: string = SINCE): Requirement => ({
  id,
  subject: "alarms",
  title,
  text,
  rules,
  since,
  needs: []
})

/** Every requirement of the alarms subject. */
export const alarmRequirements: ReadonlyArray<Requirement> = [
  alarm("ALM-001", "configuration defaults, bounds and overlay",
    "The scheduler MUST resolve its configuration from the defaults captured when the service was built overlaid by the per-call reference, round durations up to whole milliseconds, and reject a minimumRetryDelay below 1 s, a budget that is not an integer >= 1, a parkedRetryDelay below 1 h or below minimumRetryDelay, or a minimumRepeatInterval below 1 s with InvalidScheduleConfigurationError before anything commits.",
    ["R1"]),
  alarm("ALM-002", "retry delay curve",
    "The retry delay of attempt n MUST be the parked delay when parked, and otherwise min(parkedRetryDelay, base * 2^(n-1)); with defaults 1, 2, 4, 8, 16, 32, 64 s, then 1 h.",
    ["R2"]),
  alarm("ALM-003", "schema migration keeps old rows",
    "Opening storage written in either older layout (before attempt tracking; attempt tracking without wake_at) MUST add and backfill wake_at = max(run_at, retry_at ?? run_at), replace the run_at index by the wake index as the last step, and MUST NOT lose or stall any stored alarm; the migration runs inside each transaction, so a transaction that fails MUST leave the older layout untouched.",
    ["R3"]),
  alarm("ALM-004", "transactions are atomic",
    "A transaction MUST apply all of its closure's mutations, the platform alarm reconciliation and the commit together, or none of them when the closure fails or the process crashes before commit; park reports MUST happen only after the commit.",
    ["R4"]),
  alarm("ALM-005", "handles are confined to their closure",
    "A transaction handle MUST fail with StorageOperationError and write nothing when used from a fiber other than the closure's own or after its transaction ended.",
    ["R5", "H4"]),
  alarm("ALM-006", "platform alarm is reconciled in the transaction",
    "Every committed transaction MUST leave the platform alarm at the smallest wake_at (ties by storage_id) or absent when no rows remain; a failing platform alarm write MUST roll the whole transaction back; nothing else may write the platform alarm.",
    ["R6", "H6"]),
  alarm("ALM-007", "standalone calls are one-mutation transactions",
    "Standalone scheduleAlarm, scheduleAlarmEarlier and cancelAlarm MUST behave exactly like a transaction containing only that mutation.",
    ["R7"]),
  alarm("ALM-008", "schedule validation order",
    "A schedule MUST validate, in order, the configuration, the ref (non-empty tag and id: InvalidAlarmRefError), repeatEvery (finite and >= minimumRepeatInterval, stored rounded up: InvalidRepeatEveryError) and the payload (JSON-encodable: InvalidAlarmPayloadError), and MUST write nothing when any check fails.",
    ["R8"]),
  alarm("ALM-009", "no scheduling after the pass ends",
    "A schedule issued from a handler's pass after that pass ended MUST fail with StorageOperationError (detached work) and write nothing.",
    ["R9", "H4"]),
  alarm("ALM-010", "progress cursor must be a natural number",
    "A schedule with a progress value that is not a non-negative integer MUST be rejected (upstream: InvalidAlarmRefError) and write nothing.",
    ["R10"]),
  alarm("ALM-011", "replayed external notices are dropped",
    "An external schedule (outside any pass) whose progress is <= the stored cursor MUST write nothing at all, including for scheduleAlarmEarlier.",
    ["R11"]),
  alarm("ALM-012", "progress detection",
    "A schedule MUST count as progress when its cursor is strictly greater than the stored one, or when it targets the pass's own row after the stored cursor moved past the pass's snapshot.",
    ["R12"]),
  alarm("ALM-013", "attempt accounting",
    "Attempts MUST be reset to 0 for external calls and progress; kept at max(source, existing) for parked work; and otherwise set to min(budget, max(source + 1, existing)), so all schedules of one pass charge exactly once and a new id inherits the source's attempts.",
    ["R13", "H2"]),
  alarm("ALM-014", "parking is sticky until progress",
    "An alarm MUST be parked when attempts > 0 and attempts reached the budget or its source or existing row was parked, and MUST stay parked until progress even if the budget is raised.",
    ["R14", "H5"]),
  alarm("ALM-015", "retry_at from attempts",
    "retry_at MUST be null when attempts is 0, and otherwise now + retryDelay(attempts, parked).",
    ["R15"]),
  alarm("ALM-016", "scheduleAlarmEarlier min-merges",
    "scheduleAlarmEarlier MUST keep an existing row's run_at, payload and repeat when its run_at is <= the requested time, while still recomputing the attempt state and writing a new revision.",
    ["R16"]),
  alarm("ALM-017", "schedule writes",
    "A schedule MUST replace the scheduled row, write the attempts row with a fresh revision and progress = max(stored, input ?? -1), and set wake_at = max(run_at, retry_at ?? run_at) in the same transaction.",
    ["R17"]),
  alarm("ALM-018", "park reports are queued per new episode",
    "A schedule or failure MUST queue a park report only when the row is parked now and was not parked before.",
    ["R18", "H5"]),
  alarm("ALM-019", "cancel forgets everything",
    "cancelAlarm MUST delete both rows, forgetting the budget, the parking and the progress cursor.",
    ["R19"]),
  alarm("ALM-020", "dispatch options are validated first",
    "processDueAlarms MUST reject a limit that is not a positive safe integer, or a failure base delay that is not finite and > 0, with InvalidProcessDueAlarmsOptionsError before touching any row; the base delay MUST be max(minimumRetryDelay, ceil(retryFailedAfter)).",
    ["R20"]),
  alarm("ALM-021", "dispatch selection and order",
    "processDueAlarms MUST select rows with wake_at <= now ordered by (wake_at, storage_id) up to limit; backing-off or parked rows MUST NOT block other due rows.",
    ["R21", "H6"]),
  alarm("ALM-022", "per-row pass",
    "Each selected row MUST be re-read and skipped silently if gone or changed earlier in the batch; otherwise its event {id, tag, payload, scheduledAt = run_at} MUST be handled inside a pass that ends when the handler exits, and a success MUST be acknowledged and listed in handled.",
    ["R22"]),
  alarm("ALM-023", "revision-checked acknowledgement",
    "Acknowledgement MUST be conditional on the revision read at pass start: a one-shot is deleted, a repeat moves to now + max(minimumRepeatInterval, repeat) with a fresh budget and no catch-up; any handler write to its own row MUST make it a no-op.",
    ["R23", "H1", "H2"]),
  alarm("ALM-024", "failure handling",
    "A failed event MUST be recorded, onFailure run with its failure captured, the action (default retry, action delay floored at minimumRetryDelay) applied in a transaction, parking reported, and only then an onFailure failure re-raised, aborting the rest of the batch.",
    ["R24", "H3"]),
  alarm("ALM-025", "reschedule after failure",
    "A failure reschedule MUST be skipped if the row is gone or changed in the pass; otherwise it MUST charge one attempt unless parked, park at the budget, set retry_at = now + retryDelay(attempts, parked, base) and keep run_at unchanged.",
    ["R25", "H2"]),
  alarm("ALM-026", "batch result and final reconcile",
    "After the batch processDueAlarms MUST reconcile in an empty transaction and return {failed, handled, parked}; handler failures MUST NOT fail the call, while option and onFailure failures MUST.",
    ["R26"]),
  alarm("ALM-027", "park reports after commit",
    "A queued park report MUST be emitted after commit only if the row still exists, is parked and has a retry_at, as a content-free {attempts, retryAt = max(run_at, retry_at)} to the pass's parked list and the reporter (by default, a logged warning), whose failure MUST be swallowed.",
    ["R27"]),
  alarm("ALM-028", "alarm status",
    "getAlarmStatus MUST return {attempts, parked, runAt = run_at, retryAt = raw retry_at} for a stored alarm and undefined otherwise.",
    ["R28"]),
  alarm("ALM-029", "typed definitions",
    "With typed definitions, scheduling or cancelling an unknown tag MUST fail with InvalidAlarmRefError, and a stored unknown tag or undecodable payload MUST take the failure path with backoff and parking.",
    ["R29"]),
  alarm("ALM-030", "replay drop is external only",
    "Inside a pass a schedule with a non-forward cursor MUST NOT be dropped: it is a self-rearm and MUST be charged.",
    ["E1", "R11", "R13"]),
  alarm("ALM-031", "cancel and acknowledgement forget the cursor",
    "After a cancel or a one-shot acknowledgement, an external schedule carrying an old cursor MUST enroll the alarm again.",
    ["E2", "R19", "R23"]),
  alarm("ALM-032", "far-future self-rearm",
    "A self-rearm whose run_at lies beyond its retry_at MUST consume budget while keeping its own run_at as the wake.",
    ["E3", "R13", "R15"]),
  alarm("ALM-033", "later scheduleAlarmEarlier still resets the budget",
    "An external scheduleAlarmEarlier with a time later than the stored run_at MUST keep the stored deadline and reset the budget to 0.",
    ["E4", "R16", "R13"]),
  alarm("ALM-034", "rows changed earlier in the batch are skipped",
    "A row replaced or cancelled earlier in the same batch MUST be skipped without being handled, failed or reported.",
    ["E5", "R22"]),
  alarm("ALM-035", "handled includes no-op acknowledgements",
    "An event whose acknowledgement was a no-op because the handler wrote its own row MUST still be listed in handled.",
    ["E6", "R23"]),
  alarm("ALM-036", "skip-and-advance-repeat deletes a one-shot",
    "skip-and-advance-repeat on a one-shot alarm MUST delete it (and on a repeat advance it like a success).",
    ["E7", "R24"]),
  alarm("ALM-037", "two different retryAt values",
    "AlarmParked.retryAt MUST be max(run_at, retry_at) while getAlarmStatus().retryAt MUST be the raw retry_at.",
    ["E8", "R27", "R28"]),
  alarm("ALM-038", "parking undone in the same transaction is not reported",
    "Parking that is cancelled or progressed later in the same transaction MUST NOT be reported.",
    ["E9", "R27"]),
  alarm("ALM-039", "leftover rows keep dispatch going",
    "When more rows are due than limit, the platform alarm after the batch MUST be at or before now so dispatch continues.",
    ["E10", "R21", "R6"]),
  alarm("ALM-040", "budget resets only on strictly increasing progress",
    "An external call whose cursor is <= the stored cursor MUST write nothing; schedules made inside one pass MUST charge the budget once; only a strictly greater cursor (or external enrollment without a cursor) MUST reset the budget and un-park.",
    ["R11", "R12", "R13", "E1", "H2", "H5"]),
  alarm("ALM-041", "park reports: at most once, after commit, content-free",
    "A parked alarm MUST be reported at most once per parked episode, only after the commit, only if still parked at commit, and the report MUST carry only {attempts, retryAt}: no identifiers, payload or error text; a crash between commit and report MAY lose it but MUST NOT duplicate it.",
    ["R18", "R27", "E8", "E9", "H5"]),
  alarm("ALM-042", "platform alarm equals the smallest effective wake",
    "After every committed transaction the platform alarm MUST equal the smallest wake_at over all rows (ties by storage_id), or be absent when there are none; a transaction that does not commit MUST leave it unchanged.",
    ["R6", "R4", "E10", "H6"]),
  alarm("ALM-043", "a handler's own writes survive acknowledgement",
    "Any write a handler makes to its own row (a replacement, even identical, or a cancel) MUST survive the acknowledgement and the failure reschedule of its pass.",
    ["R23", "R25", "E6", "H1"]),
  alarm("ALM-044", "backoff and parking timeline",
    "An always-failing alarm MUST retry after 1, 2, 4, 8, 16, 32, 64 s with defaults, park at attempt 8 with one report and then retry hourly without new reports, keep scheduledAt stable, and stay parked when the budget is raised later.",
    ["R2", "R14", "R25", "H2", "H5"]),
  alarm("ALM-045", "dispatch order and limit; no head-of-line blocking",
    "Dispatch MUST follow (wake_at, storage_id) order and stop at limit, and a backing-off or parked row MUST never block other due rows.",
    ["R21", "E10", "H6"]),
  alarm("ALM-046", "invalid configuration or options commit nothing",
    "An invalid configuration or invalid processDueAlarms options MUST be rejected with their typed error before any row or the platform alarm changes.",
    ["R1", "R8", "R20"]),
  alarm("ALM-047", "older-schema rows keep firing",
    "Rows written in an older layout (no wake_at; with or without an attempts row, backing off or parked) MUST keep their attempt state and be dispatched at max(run_at, retry_at ?? run_at) and acknowledged after migration like any other row.",
    ["R3"]),
  alarm("ALM-048", "handles and passes cannot be used after they end",
    "A transaction handle used after its transaction or from another fiber, and a schedule from a handler pass that has ended, MUST be rejected with StorageOperationError and write nothing.",
    ["R5", "R9", "H4"]),
  alarm("ALM-049", "repeat floor and no catch-up",
    "repeatEvery below minimumRepeatInterval MUST be rejected; a completed repeat MUST move to now + max(minimumRepeatInterval, repeatEvery) with a fresh budget, never replaying missed occurrences.",
    ["R8", "R23", "H2"]),
  // Liveness (checked after the fault window by running to quiescence, properties/alarms/livenessPhase.ts).
  alarm("ALM-050", "every due alarm eventually dispatches",
    "Once faults stop, every alarm that is due or waiting for its retry MUST eventually be handed to the handler when the platform delivers its alarm, even when the platform delivers late or twice: dispatch selects by effective wake so backing-off rows never block (R21), a failed row keeps a recovery deadline (R25, H3), and the platform alarm is re-armed at the smallest wake by every transaction and after every batch (R6, R26, E10).",
    ["R21", "R25", "R26", "R6", "E10", "H3"], LIVENESS_SINCE),
  alarm("ALM-051", "the scheduler always re-arms the platform alarm",
    "Whenever alarms remain, the platform alarm MUST be set no later than their smallest effective wake after every transaction and every batch, including a delivery the platform consumed that found nothing due; no alarm may be left armed in the past, or in the future, without a platform alarm that wakes the scheduler for it.",
    ["R6", "R4", "R26", "E10", "H6"], LIVENESS_SINCE),
  // Races (properties/alarms/race.ts): an external call during a pass; truly concurrent transactions.
  alarm("ALM-052", "an external call during a handler pass",
    "A scheduleAlarm, scheduleAlarmEarlier or cancelAlarm from outside the pass (no source, R11) that commits while processDueAlarms runs MUST win over the batch's stale snapshot: a row whose revision it changed is skipped (R22), its acknowledgement (R23) and failure reschedule (R25) are no-ops, a park report queued before it re-reads the row after commit and is skipped when the row is gone or no longer parked (R27), and the final reconcile arms the platform alarm for the rows it left (R26).",
    ["R22", "R23", "R25", "R27", "R26", "R11"], RACE_SINCE),
  {
    ...alarm("ALM-053", "scheduler transactions on independent connections serialize",
      "On an engine with independent connections, a scheduler transaction started while another scheduler's transaction on the same storage is open MUST wait for it (subjects/alarms/README.md: every scheduler transaction first takes a transaction-scoped advisory lock; observed with pg_blocking_pids), and the outcome MUST equal the serial order: one storage transaction each (R4), the platform alarm reconciled from committed rows (R6).",
      ["R4", "R6"], RACE_SINCE),
    needs: ["independentConnections", "rowLocks"]
  },
  alarm("ALM-054", "operations keep upstream's span names",
    "Each operation MUST run in the span upstream names it: scheduleAlarm and scheduleAlarmEarlier in DurableObjectAlarm.scheduleAlarm, cancelAlarm in DurableObjectAlarm.cancelAlarm, processDueAlarms in DurableObjectAlarm.processDueAlarms, and through typed definitions also DefinedAlarms.scheduleAlarm and DefinedAlarms.cancelAlarm (an operator's traces, dashboards and alerts key on these names).",
    [ALARMS_SPAN_RULE], "0.7.0")
]

/** Attribution over the alarms catalog; ALM-042 (the platform alarm and stored state) when no rule matches. */
export const alarmsAttributor: Attributor = makeAttributor(alarmRequirements, "ALM-042")

/**
 * Requirement IDs citing any of `rules`, most specific first: for each rule in order, the entry whose
 * first rule it is, then other citing entries by ascending number of rules; duplicates removed.
 *
 * @example requirementsForRules(["R11"]) // ["ALM-011", "ALM-040", "ALM-030"]
 */
export const requirementsForRules = (rules: ReadonlyArray<string>): ReadonlyArray<string> => alarmsAttributor.requirementsForRules(rules)
