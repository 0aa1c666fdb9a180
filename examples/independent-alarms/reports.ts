/**
 * Park reports after commit (R18, R27): at most one per parked episode, content-free.
 */
import { DateTime, Effect } from "effect"
import { AlarmParked, AlarmReporter } from "../../subjects/alarms/api.ts"
import type { StorageOperationError } from "../../subjects/alarms/api.ts"
import { CurrentPass } from "./pass.ts"
import type { Store } from "./store.ts"

/** Storage ids queued for a park report by one transaction, in first-queued order. */
export type ParkQueue = Set<string>

/**
 * For each queued id re-reads the committed row and reports it when it is still parked with a
 * retry time (cancel or progress later in the same transaction removed the episode). The event goes
 * to the current pass's `parked` list and to the `AlarmReporter`, whose failure is swallowed.
 */
export const reportParked = (store: Store, queue: ParkQueue): Effect.Effect<void, StorageOperationError> =>
  Effect.gen(function*() {
    if (queue.size === 0) return
    const pass = yield* CurrentPass
    const reporter = yield* AlarmReporter
    for (const storageId of queue) {
      const row = yield* store.read(storageId)
      if (row === undefined || !row.parked || row.retryAt === null) continue
      const event = AlarmParked({
        attempts: row.attempts,
        retryAt: DateTime.makeUnsafe(Math.max(row.runAt, row.retryAt))
      })
      pass?.parked.push(event)
      yield* Effect.exit(Effect.suspend(() => reporter(event)))
    }
  })
