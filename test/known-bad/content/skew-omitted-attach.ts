/**
 * Real bug: attach refuses only grants expiring at or before NOW, not NOW + S, so a grant that another
 * shard's clock already sees expired is accepted.
 *
 * Breaks attach's expiry rule (CNT-006).
 */
import { knownBadContent } from "./kit.ts"

/** S omitted from attach. */
export const skewOmittedAttach = knownBadContent({
  name: "skew-omitted-attach",
  bug: "attach refuses grants expiring at or before NOW instead of NOW + S",
  breaks: ["CNT-006"],
  pieces: { verifyGrant: (grants, grant, bound, nowMs) => grants.verify(grant, bound, nowMs, 0) }
})
