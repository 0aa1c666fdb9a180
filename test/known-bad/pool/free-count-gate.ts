/**
 * A free count instead of handing the slot over (P2): a release adds a free slot and wakes the oldest
 * waiter, which takes a free slot when it runs; but any fiber asking while a slot is free takes it,
 * so the releasing fiber's next checkout grabs it back first and the woken waiter queues again at the
 * back. This is the behaviour upstream added the gate for (Effect's pool hands a freed connection to
 * whichever fiber asks next).
 *
 * Breaks POL-002 (a freed slot goes to the oldest waiter) and POL-010 (grants are FIFO); and POL-011:
 * a woken waiter interrupted before it ran leaves the slot in the free count while the others wait.
 */
import { Deferred, Effect, Exit, type Scope } from "effect"
import type { GateFactory } from "../../../subjects/pool/gate.ts"
import { knownBadPool } from "./kit.ts"

/** A free count with a wake-up: a release adds a free slot and wakes the oldest waiter later. */
const freeCountGate: GateFactory = (slots) => {
  let free = slots
  const waiters: Array<Deferred.Deferred<void>> = []
  const release = Effect.sync(() => {
    free += 1
    const next = waiters.shift()
    if (next !== undefined) queueMicrotask(() => Deferred.doneUnsafe(next, Exit.void))
  })
  const take: Effect.Effect<void, never, Scope.Scope> = Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      if (free > 0) {
        free -= 1
        return Effect.addFinalizer(() => release)
      }
      const woken = Deferred.makeUnsafe<void>()
      waiters.push(woken)
      return restore(Deferred.await(woken)).pipe(
        Effect.onInterrupt(() => Effect.sync(() => {
          const index = waiters.indexOf(woken)
          if (index >= 0) waiters.splice(index, 1)
        })),
        Effect.andThen(Effect.suspend(() => take))
      )
    })
  )
  return { take }
}

/** The free-count known-bad. */
export const freeCountGateBad = knownBadPool({
  name: "free-count-gate",
  bug: "P2: a released slot goes back to a free count, so the releasing fiber's next checkout takes it before the oldest waiter",
  breaks: ["POL-002", "POL-010", "POL-011"],
  pieces: { gate: freeCountGate }
})
