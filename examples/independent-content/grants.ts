/**
 * Signed grants (K4, K5): `v1.<expiresAt>.<mac>`, where `expiresAt` is epoch milliseconds in
 * canonical decimal and `mac` is the lowercase hex HMAC-SHA256, under the store's key, of the JSON
 * array `[tenant, hash, size, expiresAt]`. The text has exactly one spelling per grant, so any edit
 * of it is refused.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Result } from "effect"
import type { GrantBound, InvalidContentRefReason } from "../../subjects/content/api.ts"

/** What a grant binds, with its expiry. */
export interface Granted extends GrantBound {
  readonly expiresAt: number
}

/** Signing and checking grants under one key. */
export interface Grants {
  /** The grant text for `granted`. */
  readonly sign: (granted: Granted) => string
  /** The grant's expiry when it is well-formed and signed for `bound`; expiry is judged by the caller. */
  readonly verify: (grant: string, bound: GrantBound) => Result.Result<number, InvalidContentRefReason>
}

const GRANT_SHAPE = /^v1\.(0|[1-9][0-9]{0,15})\.([0-9a-f]{64})$/

/** Grants under the UTF-8 text key `grantKey`. */
export const makeGrants = (grantKey: string): Grants => {
  const key = Buffer.from(grantKey, "utf8")
  const macOf = (granted: Granted): string =>
    createHmac("sha256", key)
      .update(JSON.stringify([granted.tenant, granted.hash, granted.size, granted.expiresAt]), "utf8")
      .digest("hex")
  return {
    sign: (granted) => `v1.${granted.expiresAt}.${macOf(granted)}`,
    verify: (grant, bound) => {
      const match = typeof grant === "string" ? GRANT_SHAPE.exec(grant) : null
      const expiresText = match?.[1]
      const macText = match?.[2]
      if (expiresText === undefined || macText === undefined) return Result.fail("malformed")
      const expiresAt = Number(expiresText)
      if (!Number.isSafeInteger(expiresAt)) return Result.fail("malformed")
      const expected = Buffer.from(macOf({ ...bound, expiresAt }), "hex")
      const given = Buffer.from(macText, "hex")
      return timingSafeEqual(expected, given) ? Result.succeed(expiresAt) : Result.fail("invalid")
    }
  }
}
