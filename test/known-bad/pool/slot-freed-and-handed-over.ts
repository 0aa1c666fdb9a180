/**
 * A freed slot counted twice (P2): a release adds the slot back to the free count and also hands it
 * to the oldest waiter, "so the free count stays accurate". With waiters queued the count grows by
 * one per release; once the queue empties, a later checkout passes the gate while every slot is in
 * use, and more checkouts than connections are past it (under the driver's `multiplex` they all reach
 * the server at once).
 *
 * Breaks POL-010 (FIFO through one slot per connection) and POL-002.
 */
import { Deferred, Effect, Exit } from "effect"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { POOL_HANDED_OVER_HOOK } from "../../../subjects/pool/api.ts"
import type { GateFactory } from "../../../subjects/pool/gate.ts"
import { knownBadPool } from "./kit.ts"

const doubleCountingGate: GateFactory = (slots) => {
  let free = slots
  const waiters: Array<Deferred.Deferred<void>> = []
  /** The bug: the slot goes back to the free count whether or not a waiter is handed it. */
  const release = Effect.sync(() => {
    free += 1
    const next = waiters.shift()
    if (next !== undefined) Deferred.doneUnsafe(next, Exit.void)
  })
  const take = Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      if (free > 0 && waiters.length === 0) {
        free -= 1
        return Effect.addFinalizer(() => release)
      }
      const granted = Deferred.makeUnsafe<void>()
      waiters.push(granted)
      return restore(Deferred.await(granted).pipe(Effect.andThen(hookPoint(POOL_HANDED_OVER_HOOK)))).pipe(
        Effect.onInterrupt(() => Effect.suspend(() => {
          const index = waiters.indexOf(granted)
          if (index >= 0) {
            waiters.splice(index, 1)
            return Effect.void
          }
          return release
        })),
        Effect.andThen(Effect.addFinalizer(() => release))
      )
    })
  )
  return { take }
}

/** The double-counted-slot known-bad. */
export const slotFreedAndHandedOver = knownBadPool({
  name: "slot-freed-and-handed-over",
  bug: "P2: a release both returns the slot to the free count and hands it to the oldest waiter, so later checkouts pass a full gate",
  breaks: ["POL-010", "POL-002", "POL-011"],
  pieces: { gate: doubleCountingGate }
})
