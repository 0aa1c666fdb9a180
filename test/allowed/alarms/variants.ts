/**
 * Allowed variants of the alarms scheduler: the shipped implementation with one choice changed that
 * `reference/alarms.md` leaves to the implementation. Every alarms property must pass each of them
 * (`passes.test.ts`); a failure is an over-specification of the harness (or a variant that is not
 * allowed after all). R21 fixes the dispatch order, so no variant touches it.
 */
import { Effect } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { type AllowedVariant, buildAllowedVariant, wrappedAllowedVariant } from "../../../harness/allowedVariant.ts"
import { InvalidProcessDueAlarmsOptionsError, StorageOperationError } from "../../../subjects/alarms/api.ts"
import type { AlarmsImplementation, AlarmScheduler } from "../../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../../subjects/alarms/index.ts"
import type { PieceRuntime } from "../../../subjects/alarms/pieces.ts"
import { revisionAcknowledge } from "../../../subjects/alarms/pieces.ts"
import { SCHEDULED_TABLE } from "../../../subjects/alarms/schema.ts"
import { ALARM_ROWS_SELECT, decodeStoredAlarm } from "../../../subjects/alarms/store.ts"
import { validateFailureDelayMs, validateLimit } from "../../../subjects/alarms/validation.ts"
import { alarmsPieceKit } from "../../known-bad/alarms/kit.ts"
import { hooklessOf } from "../../support/withoutHookPoints.ts"

/** The smallest stored `wake_at`, or null when no rows remain. */
const smallestWakeMs = (runtime: PieceRuntime): Effect.Effect<number | null, SqlError> => {
  const sql = runtime.store.sql
  return sql<{ readonly wake_at: unknown }>`SELECT MIN(wake_at) AS wake_at FROM ${sql.literal(SCHEDULED_TABLE)}`.pipe(
    Effect.map((rows) => (rows[0] === undefined || rows[0].wake_at === null ? null : Number(rows[0].wake_at)))
  )
}

/** R6 reconcile through `MIN(wake_at)`: the same value as `ORDER BY wake_at, storage_id LIMIT 1`. */
export const minWakeReconcile = (runtime: PieceRuntime): Effect.Effect<void, SqlError> =>
  Effect.flatMap(smallestWakeMs(runtime), (wakeMs) => (wakeMs === null ? runtime.platformAlarm.delete : runtime.platformAlarm.set(wakeMs)))

/** R6 reconcile that reads the platform alarm first and writes it only when it differs. */
export const unchangedSkippingReconcile = (runtime: PieceRuntime): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    const wakeMs = yield* smallestWakeMs(runtime)
    const currentMs = yield* runtime.platformAlarm.get
    if (currentMs === wakeMs) return
    yield* wakeMs === null ? runtime.platformAlarm.delete : runtime.platformAlarm.set(wakeMs)
  })

/**
 * R23 with another statement order: read the row, compare its revision in memory, then write the
 * attempts row before the scheduled row (one-shot: delete attempts, then row; repeat: attempts and
 * `wake_at`, then `run_at`).
 */
export const readFirstAcknowledge: typeof revisionAcknowledge = (runtime, row, configuration) =>
  Effect.gen(function*() {
    const current = yield* runtime.store.readRow(row.storageId)
    if (current === undefined || current.revision !== row.revision) return
    if (row.repeatEveryMs === null) {
      yield* runtime.store.deleteAttempts(row.storageId)
      yield* runtime.store.deleteRow(row.storageId)
      return
    }
    const nowMs = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const runAtMs = nowMs + Math.max(configuration.minimumRepeatIntervalMs, row.repeatEveryMs)
    yield* runtime.writeAttemptState(row.storageId, { attempts: 0, parked: false, retryAtMs: null, progress: row.progress }, runAtMs)
    yield* runtime.store.setRunAt(row.storageId, runAtMs)
  })

/** R21's selection in two statements: the due ids in dispatch order, then each row read on its own. */
export const splitReadSelectDue = (runtime: PieceRuntime, nowMs: number, limit: number) => {
  const sql = runtime.store.sql
  return sql<{ readonly storage_id: unknown }>`SELECT storage_id FROM ${sql.literal(SCHEDULED_TABLE)}
    WHERE wake_at <= ${nowMs} ORDER BY wake_at, storage_id LIMIT ${limit}`.pipe(
    Effect.flatMap((ids) =>
      Effect.forEach(ids, (id) =>
        sql<Record<string, unknown>>`${sql.literal(ALARM_ROWS_SELECT)} WHERE a.storage_id = ${String(id.storage_id)}`.pipe(
          Effect.map((rows) => rows.map(decodeStoredAlarm))
        ))
    ),
    Effect.map((rows) => rows.flat())
  )
}

/** The shipped scheduler with `adapt` applied to each scheduler it makes. */
const adaptedShipped = (name: string, adapt: (scheduler: AlarmScheduler, deps: Parameters<AlarmsImplementation["make"]>[0]) => AlarmScheduler): AlarmsImplementation => ({
  name,
  make: (deps) => Effect.map(shippedAlarms.make(deps), (scheduler) => adapt(scheduler, deps))
})

/** `processDueAlarms` options (R20) checked before the configuration (R1) is resolved. */
export const optionsFirstScheduler = (scheduler: AlarmScheduler): AlarmScheduler => ({
  ...scheduler,
  processDueAlarms: (handle, options) =>
    Effect.try({
      // Validity of `retryFailedAfter` (finite, > 0) does not depend on the configuration's floor.
      try: () => {
        validateLimit(options?.limit)
        if (options?.retryFailedAfter !== undefined) validateFailureDelayMs(options.retryFailedAfter, 1)
      },
      catch: (cause) => new InvalidProcessDueAlarmsOptionsError({ cause })
    }).pipe(Effect.andThen(scheduler.processDueAlarms(handle, options)))
})

/** The allowed variants of the alarms scheduler. */
export const alarmsAllowedVariants: ReadonlyArray<AllowedVariant<AlarmsImplementation>> = [
  buildAllowedVariant(alarmsPieceKit, {
    name: "reconcile-skips-unchanged-alarm",
    freedom: "R6 fixes the platform alarm's value (smallest wake_at, or none), not that an alarm already at that value is written again",
    pieces: { reconcile: unchangedSkippingReconcile }
  }),
  buildAllowedVariant(alarmsPieceKit, {
    name: "reconcile-min-wake",
    freedom: "R6 fixes the value (smallest wake_at; the storage_id tie-break cannot change it), not the query: MIN(wake_at) instead of ORDER BY ... LIMIT 1",
    pieces: { reconcile: minWakeReconcile }
  }),
  buildAllowedVariant(alarmsPieceKit, {
    name: "ack-read-then-attempts-first",
    freedom: "R23 fixes when an acknowledgement writes (revision unchanged) and what, not its statements' order (R17 orders schedule writes only): read, then attempts row before the scheduled row",
    pieces: { acknowledge: readFirstAcknowledge }
  }),
  buildAllowedVariant(alarmsPieceKit, {
    name: "select-due-split-reads",
    freedom: "R21 fixes which rows are due and their order, not that they are read in one statement: ids first, then each row (R22 re-reads each row anyway)",
    pieces: { selectDue: splitReadSelectDue }
  }),
  wrappedAllowedVariant({
    name: "dispatch-options-before-configuration",
    freedom: "R20 checks options before any row is touched and R1 rejects a bad configuration before anything commits; unlike R8 for schedules, no rule orders the two for processDueAlarms"
  }, (name) => adaptedShipped(name, optionsFirstScheduler)),
  wrappedAllowedVariant({
    name: "status-read-in-transaction",
    freedom: "R28 fixes what getAlarmStatus reports, not whether it reads inside a storage transaction (no rule requires or forbids one for a read)"
  }, (name) =>
    adaptedShipped(name, (scheduler, deps) => ({
      ...scheduler,
      getAlarmStatus: (ref) =>
        deps.sql.withTransaction(scheduler.getAlarmStatus(ref)).pipe(
          Effect.mapError((error) => isSqlError(error) ? new StorageOperationError({ operation: "alarm.getStatus", cause: error }) : error)
        )
    }))),
  wrappedAllowedVariant({
    name: "without-hook-points",
    freedom: "hook points are optional refinements (DESIGN.md: an implementation faithful to upstream, without our hook points, must pass); alarms/race still lands the racer inside handler passes, at the harness's own handler points"
  }, (name) => hooklessOf(shippedAlarms, name))
]
