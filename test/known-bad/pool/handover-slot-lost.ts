/**
 * A slot lost on interruption after the hand-over (P2, P4): an interrupted waiter only removes itself
 * from the queue; when the slot had already been handed to it, nobody gets it back, so the pool runs
 * one connection short from then on.
 *
 * Breaks POL-011 (no slot leaks under interruption), and the gate's hand-over POL-002.
 */
import { handOverGateWith, handOverRelease } from "./handOverGate.ts"
import { knownBadPool } from "./kit.ts"

/** The bug: a waiter interrupted after it was handed the slot does not pass it on. */
const leakyGate = handOverGateWith({ release: handOverRelease, passOnWhenInterruptedAfterHandOver: false })

/** The lost-slot known-bad. */
export const handoverSlotLost = knownBadPool({
  name: "handover-slot-lost",
  bug: "P2/P4: a waiter interrupted after it was handed a slot does not pass it on; the slot leaks",
  breaks: ["POL-011", "POL-002", "POL-010"],
  pieces: { gate: leakyGate }
})
