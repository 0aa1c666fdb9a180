/**
 * B1d: completions made while the process was down never woke their runs: the sweep re-delivered no wake.
 * Breaks C12 (wake every unconsumed completion of the flow): CLK-014; liveness L2: CLK-021.
 */
import { knownBadClock } from "./kit.ts"

/** B1d known-bad variant. */
export const b1dNoWakeRedelivery = knownBadClock({
  name: "b1d-no-wake-redelivery",
  bug: "B1d: sweepDue(flow) wakes no completed deferred",
  breaks: ["CLK-014", "CLK-021"],
  pieces: { sweepWakes: () => [] }
})
