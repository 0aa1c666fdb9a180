/**
 * B1c: the sweep armed only clocks already due; after a restart, future clocks were never armed again.
 * Breaks C12 (arm every pending clock at its stored deadline): CLK-014; liveness L1: CLK-020.
 */
import { knownBadClock } from "./kit.ts"

/** B1c known-bad variant. */
export const b1cSweepDueOnly = knownBadClock({
  name: "b1c-sweep-due-only",
  bug: "B1c: sweepDue arms only clocks whose deadline already passed",
  breaks: ["CLK-014", "CLK-020"],
  pieces: { sweepArms: (row, nowMs) => row.dueAtMs <= nowMs }
})
