/**
 * A fixed retry delay (P7, own): the retry helper waits the 250 ms cap every time instead of starting
 * at 10 ms and doubling, so a refused checkout comes back far later than it should.
 *
 * Breaks POL-007.
 */
import { Duration, Schedule } from "effect"
import { knownBadPool } from "./kit.ts"

/** The fixed-delay known-bad. */
export const retryFixedDelay = knownBadPool({
  name: "retry-fixed-delay",
  bug: "P7: pool refusals are retried every 250 ms instead of exponentially from 10 ms",
  breaks: ["POL-007"],
  pieces: { retrySchedule: Schedule.spaced(Duration.millis(250)) }
})
