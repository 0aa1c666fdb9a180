/**
 * H2: a handler re-arming itself is treated as fresh enrollment, so a self-rearm loop is never charged.
 *
 * Breaks R13 (a schedule in a pass charges once; parked work keeps its attempts): ALM-013 (H2),
 * ALM-040 (schedules in one pass charge the budget once), ALM-030 (E1: a non-forward cursor in a pass
 * is a charged self-rearm), ALM-032 (E3: a far-future self-rearm consumes budget) and R14's stickiness,
 * ALM-014 (a parked row's self-rearm un-parks it); and through H2 the parking timeline, ALM-044 (a
 * failing pass that re-arms, say, a new id is never charged, so that alarm never parks and its park
 * report, content-free like the failed row's own, is missing).
 */
import { knownBadAlarm } from "./kit.ts"

/** H2 (free self-rearm) known-bad variant. */
export const h2FreeSelfRearm = knownBadAlarm({
  name: "h2-free-self-rearm",
  bug: "H2: self-rearms from inside a pass are free: attempts reset to 0 instead of being charged",
  breaks: ["ALM-013", "ALM-040", "ALM-030", "ALM-032", "ALM-014", "ALM-044"],
  pieces: { scheduleAttempts: () => 0 }
})
