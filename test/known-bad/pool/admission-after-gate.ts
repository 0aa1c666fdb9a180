/**
 * Admission counted after the gate (P1): a checkout first waits at the gate and only then takes its
 * admission slot, so admission counts holders only; waiters are never bounded and a checkout past
 * maxConnections + 64 queues instead of being refused.
 *
 * Breaks POL-008 (waiters never exceed the bound) and POL-001 (refused at once past the bound).
 */
import { Effect } from "effect"
import { knownBadPool } from "./kit.ts"

/** The admission-after-gate known-bad. */
export const admissionAfterGate = knownBadPool({
  name: "admission-after-gate",
  bug: "P1: admission is taken after the gate, so waiters are unbounded and nothing is refused",
  breaks: ["POL-008", "POL-001"],
  pieces: { checkout: (admission, gate) => Effect.andThen(gate.take, admission.take) }
})
