/**
 * Own: the grant parser reads the first three `.`-parts and ignores the rest, so a signed grant with
 * text appended (`<grant>.x`) is accepted: a text the store never signed passes as its grant.
 *
 * Breaks the refusal of malformed grants (CNT-005); only a tampered grant shows it.
 */
import { knownBadContent } from "./kit.ts"

/** Trailing parts dropped before verifying. */
export const grantTrailingPartsIgnored = knownBadContent({
  name: "grant-trailing-parts-ignored",
  bug: "a grant's parts past the third are ignored, so a signed grant with text appended is accepted",
  breaks: ["CNT-005"],
  pieces: {
    verifyGrant: (grants, grant, bound, nowMs, skewMs) => grants.verify(grant.split(".").slice(0, 3).join("."), bound, nowMs, skewMs)
  }
})
