/**
 * `processDueAlarms` (R20-R26): select due rows by effective wake, run each handler in a pass,
 * acknowledge or take the failure path, then reconcile once more.
 */
import { Cause, Clock, DateTime, Effect, Exit } from "effect"
import { StoredAlarmDecodeError } from "../../subjects/alarms/api.ts"
import type {
  AlarmEvent,
  AlarmParked,
  AlarmPayload,
  ProcessDueAlarmsFailure,
  ProcessDueAlarmsHandler,
  ProcessDueAlarmsOptions,
  ProcessDueAlarmsResult,
  ResolvedScheduleConfiguration,
  ScheduleConfiguration
} from "../../subjects/alarms/api.ts"
import { acknowledge } from "./acknowledge.ts"
import { resolveConfiguration } from "./config.ts"
import { handleFailure } from "./failure.ts"
import { withinPass } from "./pass.ts"
import { migrate } from "./schema.ts"
import type { StoredAlarm } from "./store.ts"
import type { TransactionContext } from "./transaction.ts"
import { runTransaction } from "./transaction.ts"
import { validateFailureDelay, validateLimit } from "./validate.ts"

/** Decodes the event of a stored row; an unparseable payload is a `StoredAlarmDecodeError`. */
export const decodeEvent = (row: StoredAlarm): Exit.Exit<AlarmEvent, StoredAlarmDecodeError> => {
  try {
    const payload = JSON.parse(row.payload) as AlarmPayload
    return Exit.succeed({ id: row.alarmId, tag: row.tag, payload, scheduledAt: DateTime.makeUnsafe(row.runAt) })
  } catch (cause) {
    return Exit.fail(new StoredAlarmDecodeError({ cause, storageId: row.storageId, tag: row.tag, id: row.alarmId }))
  }
}

/** The mutable outcome of one batch. */
export interface Batch {
  readonly handled: Array<AlarmEvent>
  readonly failed: Array<ProcessDueAlarmsFailure>
  readonly parked: Array<AlarmParked>
}

/** Runs one due row: skip when changed earlier in the batch, else handle and acknowledge or fail (R22). */
const runRow = <R, E, OR, OE>(
  ctx: TransactionContext,
  row: StoredAlarm,
  batch: Batch,
  handle: ProcessDueAlarmsHandler<R, E>,
  options: ProcessDueAlarmsOptions<OR, OE> | undefined,
  configuration: ResolvedScheduleConfiguration,
  baseDelayMs: number
) =>
  Effect.gen(function*() {
    const current = yield* ctx.store.read(row.storageId)
    if (current === undefined || current.revision !== row.revision) return
    const pass = withinPass(row, batch.parked)
    const fail = (event: AlarmEvent | undefined, cause: Cause.Cause<unknown>) =>
      pass(handleFailure(ctx, row, event, cause, batch, options, configuration, baseDelayMs))
    const decoded = decodeEvent(row)
    if (Exit.isFailure(decoded)) return yield* fail(undefined, decoded.cause)
    const event = decoded.value
    const outcome = yield* Effect.exit(pass(Effect.suspend(() => handle(event))))
    if (Exit.isFailure(outcome)) return yield* fail(event, outcome.cause)
    yield* runTransaction(ctx, () => acknowledge(ctx.store, row, configuration))
    batch.handled.push(event)
  })

/** Builds `processDueAlarms` over the scheduler's transaction context and build-time defaults. */
export const makeProcessDueAlarms = (ctx: TransactionContext, defaults: ScheduleConfiguration) =>
<R = never, E = never, OR = never, OE = never>(
  handle: ProcessDueAlarmsHandler<R, E>,
  options?: ProcessDueAlarmsOptions<OR, OE>
) =>
  Effect.gen(function*() {
    const configuration = yield* resolveConfiguration(defaults)
    const limit = yield* validateLimit(options?.limit)
    const baseDelayMs = yield* validateFailureDelay(
      options?.retryFailedAfter ?? configuration.minimumRetryDelayMs,
      configuration.minimumRetryDelayMs
    )
    yield* migrate(ctx.sql, ctx.dialect)
    const nowMs = yield* Clock.currentTimeMillis
    const due = yield* ctx.store.due(nowMs, limit)
    const batch: Batch = { handled: [], failed: [], parked: [] }
    for (const row of due) {
      yield* runRow(ctx, row, batch, handle, options, configuration, baseDelayMs)
    }
    yield* runTransaction(ctx, () => Effect.void)
    const result: ProcessDueAlarmsResult = batch
    return result
  }).pipe(Effect.withSpan("DurableObjectAlarm.processDueAlarms"))
