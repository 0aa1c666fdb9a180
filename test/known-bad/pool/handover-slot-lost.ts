/**
 * A slot lost on interruption after the hand-over (P2, P4): an interrupted waiter only removes itself
 * from the queue; when the slot had already been handed to it, nobody gets it back, so the pool runs
 * one connection short from then on.
 *
 * Breaks POL-011 (no slot leaks under interruption), and the gate's hand-over POL-002.
 */
import { Deferred, Effect, Exit } from "effect"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { POOL_HANDED_OVER_HOOK } from "../../../subjects/pool/api.ts"
import type { GateFactory } from "../../../subjects/pool/gate.ts"
import { knownBadPool } from "./kit.ts"

const leakyGate: GateFactory = (slots) => {
  let free = slots
  const waiters: Array<Deferred.Deferred<void>> = []
  const release = Effect.sync(() => {
    const next = waiters.shift()
    if (next !== undefined) Deferred.doneUnsafe(next, Exit.void)
    else free += 1
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
        // The bug: an interrupted waiter that was already handed the slot does not pass it on.
        Effect.onInterrupt(() => Effect.sync(() => {
          const index = waiters.indexOf(granted)
          if (index >= 0) waiters.splice(index, 1)
        })),
        Effect.andThen(Effect.addFinalizer(() => release))
      )
    })
  )
  return { take }
}

/** The lost-slot known-bad. */
export const handoverSlotLost = knownBadPool({
  name: "handover-slot-lost",
  bug: "P2/P4: a waiter interrupted after it was handed a slot does not pass it on; the slot leaks",
  breaks: ["POL-011", "POL-002", "POL-010"],
  pieces: { gate: leakyGate }
})
