/**
 * A gate whose wait ignores cancellation (P4): the shipped FIFO gate, its whole `take` run
 * uninterruptibly, "so a slot can never be lost between being handed over and registered". A checkout
 * queued on a full pool then cannot be cancelled (a timeout, an interrupted request) until some
 * connection is released; only then is it handed the slot, registers it and passes it on.
 *
 * Breaks POL-004 (cancellation ends the checkout's wait, its slots belong to its scope).
 */
import { Effect } from "effect"
import { fifoGate, type GateFactory } from "../../../subjects/pool/gate.ts"
import { knownBadPool } from "./kit.ts"

/** The shipped gate with its wait made uninterruptible. */
const uninterruptibleGate: GateFactory = (slots) => {
  const inner = fifoGate(slots)
  return { take: Effect.uninterruptible(inner.take) }
}

/** The uninterruptible-wait known-bad. */
export const uninterruptibleGateWait = knownBadPool({
  name: "uninterruptible-gate-wait",
  bug: "P4: a checkout waiting at the gate ignores cancellation until a connection is released",
  breaks: ["POL-004"],
  pieces: { gate: uninterruptibleGate }
})
