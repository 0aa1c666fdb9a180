/**
 * Own: the sweep pages by granted_until alone, so candidates sharing the last granted_until of a
 * batch with ones in the next batch are skipped and outlive their horizon.
 *
 * Breaks the sweep's paging and count (CNT-007) and, on a forced sweep, the upper bound (CNT-015).
 */
import { knownBadContent } from "./kit.ts"

/** Pages past ties. */
export const pagingSkipsTies = knownBadContent({
  name: "paging-skips-ties",
  bug: "candidates are paged by granted_until alone: ties across a batch boundary are skipped",
  breaks: ["CNT-007", "CNT-015"],
  pieces: { nextPage: (last) => ({ grantedUntilMs: last.grantedUntilMs, hash: "\uffff" }) }
})
