/**
 * Real bug: the skew margin S omitted from the sweep's candidate horizon, so unreferenced content
 * goes up to S before granted_until + G + T + S.
 *
 * Breaks the lower bound on deletion time (CNT-014).
 */
import { knownBadContent } from "./kit.ts"

/** S omitted from the horizon. */
export const skewOmittedHorizon = knownBadContent({
  name: "skew-omitted-horizon",
  bug: "candidates are granted_until < sweepStart - G - T: the skew margin S is missing",
  breaks: ["CNT-014"],
  pieces: { candidateBeforeMs: (start, h) => start - h.graceMs - h.turnMs }
})
