/**
 * Writes that close a handler pass: acknowledgement (R23) and reschedule after failure (R25).
 * Both are conditional on the revision read at pass start and run inside a scheduler transaction.
 */
import { Clock, Effect } from "effect"
import type { ResolvedScheduleConfiguration, StorageOperationError } from "../../subjects/alarms/api.ts"
import { retryDelayMs } from "./config.ts"
import type { ParkQueue } from "./reports.ts"
import { newRevision } from "./schedule.ts"
import type { Store, StoredAlarm } from "./store.ts"

/** True when the row still carries the revision the pass started from. */
const unchangedSince = (store: Store, row: StoredAlarm): Effect.Effect<boolean, StorageOperationError> =>
  Effect.map(store.read(row.storageId), (current) => current !== undefined && current.revision === row.revision)

/**
 * R23: a one-shot is deleted with its attempts row; a repeat moves to `now + max(floor, repeat)`
 * with a fresh budget. Any write to the row since pass start makes this a no-op.
 */
export const acknowledge = (
  store: Store,
  row: StoredAlarm,
  configuration: ResolvedScheduleConfiguration
): Effect.Effect<void, StorageOperationError> =>
  Effect.gen(function*() {
    if (!(yield* unchangedSince(store, row))) return
    if (row.repeatEveryMs === null) return yield* store.remove(row.storageId)
    const nowMs = yield* Clock.currentTimeMillis
    const runAt = nowMs + Math.max(configuration.minimumRepeatIntervalMs, row.repeatEveryMs)
    yield* store.setRunAt(row.storageId, runAt)
    const revision = yield* newRevision
    yield* store.putAttempts(row.storageId, revision, { attempts: 0, parked: false, retryAt: null, progress: row.progress }, runAt)
  })

/**
 * R25: charge one attempt unless parked, park at the budget, back off from `baseMs`; `run_at` stays.
 * Skipped when the row is gone or was rewritten during the pass (a self-rearm already charged).
 */
export const rescheduleAfterFailure = (
  store: Store,
  row: StoredAlarm,
  baseMs: number,
  configuration: ResolvedScheduleConfiguration,
  queue: ParkQueue
): Effect.Effect<void, StorageOperationError> =>
  Effect.gen(function*() {
    if (!(yield* unchangedSince(store, row))) return
    const budget = configuration.unchangedAttemptBudget
    const attempts = row.parked ? row.attempts : Math.min(budget, row.attempts + 1)
    const parked = row.parked || attempts >= budget
    const nowMs = yield* Clock.currentTimeMillis
    const retryAt = nowMs + retryDelayMs(attempts, parked, configuration, baseMs)
    const revision = yield* newRevision
    yield* store.putAttempts(row.storageId, revision, { attempts, parked, retryAt, progress: row.progress }, Math.max(row.runAt, retryAt))
    if (parked && !row.parked) queue.add(row.storageId)
  })
