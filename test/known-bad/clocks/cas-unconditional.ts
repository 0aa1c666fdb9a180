/**
 * Own: the fire's CAS overwrites completedAt even when it is set; a fire after a rewind moves it.
 * Breaks C10 (CAS only if still null): CLK-012; IG1 (exactly one completedAt): CLK-016. A re-fire's
 * second clock-completed record conflicts, so a retried fire is never acknowledged and its resume never
 * comes (C11: CLK-013) and the timer retries forever (L3: CLK-022); a re-armed clock's fire fails the
 * same way (C9: CLK-011).
 */
import { knownBadClock } from "./kit.ts"

/** Unconditional CAS known-bad variant. */
export const casUnconditional = knownBadClock({
  name: "cas-unconditional",
  bug: "the fire sets completedAt whether or not it was already set",
  breaks: ["CLK-012", "CLK-016", "CLK-011", "CLK-013", "CLK-022"],
  pieces: { completeClock: (store, row, completedAtMs) => store.setClockCompleted(row, completedAtMs) }
})
