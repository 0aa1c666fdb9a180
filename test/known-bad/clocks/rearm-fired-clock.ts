/**
 * Own: arming ignores whether a fired clock's completion still stands, so every replayed schedule fires
 * it again (and resumes its run again, re-driving a parked run).
 * Breaks C9 (a fired clock re-armed only when its completion is gone): CLK-011.
 */
import { knownBadClock } from "./kit.ts"

/** Re-arm-fired-clock known-bad variant. */
export const rearmFiredClock = knownBadClock({
  name: "rearm-fired-clock",
  bug: "armClock arms fired clocks whose completion still stands",
  breaks: ["CLK-011", "CLK-012"],
  pieces: { shouldArm: () => true }
})
