/**
 * B9: no fire-time record: a fired clock's completion was never journalled, so tables rebuilt from the
 * journal showed it pending again.
 * Breaks C10 (clock-completed when the CAS won): CLK-012; IG4: CLK-019.
 */
import { knownBadClock } from "./kit.ts"

/** B9 known-bad variant. */
export const b9NoClockCompletedRecord = knownBadClock({
  name: "b9-no-clock-completed-record",
  bug: "B9: the fire completes the clock row but never emits clock-completed",
  breaks: ["CLK-012", "CLK-019"],
  pieces: { clockCompletedRecord: () => null }
})
