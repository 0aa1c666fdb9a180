/**
 * Own: attach refuses only grants expiring strictly before NOW + S, so a grant expiring exactly at
 * NOW + S is accepted (the rule says "at or before").
 *
 * Breaks attach's expiry rule (CNT-006).
 */
import { knownBadContent } from "./kit.ts"

/** Off by one at the expiry boundary. */
export const expiryBoundaryStrict = knownBadContent({
  name: "expiry-boundary-strict",
  bug: "attach refuses grants expiring before NOW + S, accepting one expiring exactly at NOW + S",
  breaks: ["CNT-006"],
  pieces: { verifyGrant: (grants, grant, bound, nowMs, skewMs) => grants.verify(grant, bound, nowMs, skewMs - 1) }
})
