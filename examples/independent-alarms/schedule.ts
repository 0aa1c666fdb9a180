/**
 * `scheduleAlarm` / `scheduleAlarmEarlier` inside a transaction (R8-R18).
 */
import { Clock, DateTime, Effect, Random } from "effect"
import { StorageOperationError } from "../../subjects/alarms/api.ts"
import type { ScheduleAlarmError, ScheduleAlarmInput, ScheduleConfiguration } from "../../subjects/alarms/api.ts"
import { scheduledAttempts } from "./attempts.ts"
import { resolveConfiguration } from "./config.ts"
import { CurrentPass } from "./pass.ts"
import type { ParkQueue } from "./reports.ts"
import type { Store } from "./store.ts"
import { encodePayload, validateProgress, validateRef, validateRepeatEvery } from "./validate.ts"

/** A fresh opaque revision (128 random bits, UUID-shaped) drawn from Effect's `Random`. */
export const newRevision: Effect.Effect<string> = Effect.gen(function*() {
  let hex = ""
  for (let index = 0; index < 4; index++) {
    hex += (yield* Random.nextIntBetween(0, 0xffffffff)).toString(16).padStart(8, "0")
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
})

const detached = new StorageOperationError({
  operation: "alarm.schedule",
  cause: new Error("Alarm handlers cannot schedule detached work after their pass ends")
})

/**
 * Validates in order (configuration, ref, repeat, payload), reads the existing row and the pass,
 * drops replayed external notices (R11), computes attempts (R13-R15), min-merges for `earlier` (R16),
 * writes both rows with a fresh revision (R17) and queues a report for a new parked episode (R18).
 */
export const scheduleInTransaction = (store: Store, defaults: ScheduleConfiguration) =>
(input: ScheduleAlarmInput, earlier: boolean, queue: ParkQueue): Effect.Effect<void, ScheduleAlarmError> =>
  Effect.gen(function*() {
    const configuration = yield* resolveConfiguration(defaults)
    const storageId = yield* validateRef(input)
    const repeatEveryMs = yield* validateRepeatEvery(input.repeatEvery, configuration.minimumRepeatIntervalMs)
    const payload = yield* encodePayload(input.payload)
    const existing = yield* store.read(storageId)
    const pass = yield* CurrentPass
    const source = pass?.source
    const progress = existing?.progress ?? source?.progress ?? -1
    if (pass !== undefined && !pass.active) return yield* Effect.fail(detached)
    yield* validateProgress(input.progress)
    if (source === undefined && input.progress !== undefined && input.progress <= progress) return
    const nowMs = yield* Clock.currentTimeMillis
    const state = scheduledAttempts(
      { storageId, existing, source, progress, inputProgress: input.progress, nowMs },
      configuration
    )
    const requestedRunAt = DateTime.toEpochMillis(input.runAt)
    const keep = earlier && existing !== undefined && existing.runAt <= requestedRunAt
    const runAt = keep ? existing.runAt : requestedRunAt
    const wakeAt = Math.max(runAt, state.retryAt ?? runAt)
    yield* store.putAlarm({
      storageId,
      alarmId: input.id,
      tag: input.tag,
      runAt,
      wakeAt,
      repeatEveryMs: keep ? existing.repeatEveryMs : repeatEveryMs,
      payload: keep ? existing.payload : payload
    })
    const revision = yield* newRevision
    yield* store.putAttempts(storageId, revision, { ...state, progress: Math.max(progress, input.progress ?? -1) }, wakeAt)
    const wasParked = existing?.parked ?? source?.parked ?? false
    if (state.parked && state.retryAt !== null && !wasParked) queue.add(storageId)
  }).pipe(Effect.withSpan("DurableObjectAlarm.scheduleAlarm"))
