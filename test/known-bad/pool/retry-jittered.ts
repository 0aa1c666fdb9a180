/**
 * A jittered retry ladder (P7, own): the retry helper spreads refused callers by randomising each
 * delay (Effect's `Schedule.jittered`, 80% to 120%), so retries come at neither 10 ms doubling nor the
 * 250 ms cap. Each delay alone is close to the rule's, and a caller that only checks who was admitted
 * by when rarely tells them apart.
 *
 * Breaks POL-007.
 */
import { Schedule } from "effect"
import { refusalSchedule } from "../../../subjects/pool/retry.ts"
import { knownBadPool } from "./kit.ts"

/** The jittered-ladder known-bad. */
export const retryJittered = knownBadPool({
  name: "retry-jittered",
  bug: "P7: every retry delay of a refused checkout is jittered to 80-120% of the ladder's",
  breaks: ["POL-007"],
  pieces: { retrySchedule: Schedule.jittered(refusalSchedule) }
})
