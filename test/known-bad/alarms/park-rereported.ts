/**
 * Every write that leaves a row parked queues a report, so a parked alarm is re-reported on every pass.
 *
 * Breaks R18 (queue a report only for a new parked episode): ALM-018; R27's at most one report per
 * episode: ALM-041; and the timeline's hourly retries without new reports: ALM-044.
 */
import { knownBadAlarm } from "./kit.ts"

/** Re-reporting known-bad variant. */
export const parkRereported = knownBadAlarm({
  name: "park-rereported",
  bug: "a parked alarm is reported again on every parked pass instead of once per episode",
  breaks: ["ALM-018", "ALM-041", "ALM-044"],
  pieces: { opensParkedEpisode: (_wasParked, parkedNow) => parkedNow }
})
