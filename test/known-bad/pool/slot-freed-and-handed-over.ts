/**
 * A freed slot counted twice (P2): a release adds the slot back to the free count and also hands it
 * to the oldest waiter, "so the free count stays accurate". With waiters queued the count grows by
 * one per release; once the queue empties, a later checkout passes the gate while every slot is in
 * use, and more checkouts than connections are past it (under the driver's `multiplex` they all reach
 * the server at once).
 *
 * Breaks POL-010 (FIFO through one slot per connection) and POL-002.
 */
import { Deferred, Exit } from "effect"
import { handOverGateWith } from "./handOverGate.ts"
import { knownBadPool } from "./kit.ts"

/** The bug: the slot goes back to the free count whether or not a waiter is handed it. */
const doubleCountingGate = handOverGateWith({
  release: (slots) => {
    slots.free += 1
    const next = slots.waiters.shift()
    if (next !== undefined) Deferred.doneUnsafe(next, Exit.void)
  },
  passOnWhenInterruptedAfterHandOver: true
})

/** The double-counted-slot known-bad. */
export const slotFreedAndHandedOver = knownBadPool({
  name: "slot-freed-and-handed-over",
  bug: "P2: a release both returns the slot to the free count and hands it to the oldest waiter, so later checkouts pass a full gate",
  breaks: ["POL-010", "POL-002", "POL-011"],
  pieces: { gate: doubleCountingGate }
})
