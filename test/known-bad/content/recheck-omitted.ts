/**
 * Real bug: the delete trusts the candidate scan (no re-check of the horizon when it reads the row), so
 * a reference attached, or a grant raised, after the scan loses its content.
 *
 * Breaks (ii) (CNT-010) and, for a racing grant or upload, (iii) (CNT-011).
 */
import { knownBadContent } from "./kit.ts"

/** The re-check omitted. */
export const recheckOmitted = knownBadContent({
  name: "recheck-omitted",
  bug: "the delete trusts the candidate scan: no re-check of granted_until < sweepStart - T - S",
  breaks: ["CNT-010", "CNT-011"],
  pieces: { recheckBeforeMs: () => Number.MAX_SAFE_INTEGER }
})
