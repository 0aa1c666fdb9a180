/**
 * Grants (K4): HMAC-SHA256 (WebCrypto) over `{tenant, hash, size, expiresAt}` with a key from the
 * configuration. A grant is `v1.<base64url payload>.<base64url MAC>`; the payload is canonical JSON.
 * Verification says why a grant is refused (K5): `malformed` (not a grant), `invalid` (MAC, tenant,
 * hash or size do not match), `expired` (expires at or before `now + skew`).
 *
 * @example
 * const grants = makeGrants("secret")
 * const grant = yield* grants.sign({ tenant: "t", hash, size: 3, expiresAt: 3_600_000 })
 * yield* grants.verify(grant, { tenant: "t", hash, size: 3 }, 0, 60_000) // Result.succeed(3_600_000)
 */
import { Effect, Result } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import type { GrantBound, InvalidContentRefReason } from "./api.ts"

/** What a grant binds. */
export interface Granted extends GrantBound {
  readonly expiresAt: number
}

/** Signing and verification of grants under one key. */
export interface Grants {
  readonly sign: (granted: Granted) => Effect.Effect<string>
  /** The grant's expiry, or why it is refused, for `bound` at `nowMs` with skew bound `skewMs`. */
  readonly verify: (grant: string, bound: GrantBound, nowMs: number, skewMs: number) => Effect.Effect<Result.Result<number, InvalidContentRefReason>>
}

const PREFIX = "v1"
const encoder = new TextEncoder()

const payloadText = (granted: Granted): string =>
  JSON.stringify({ tenant: granted.tenant, hash: granted.hash, size: granted.size, expiresAt: granted.expiresAt })

/** Parses a payload; undefined when it is not one. */
const parsePayload = (text: string): Granted | undefined => {
  try {
    const value = JSON.parse(text) as Record<string, unknown>
    const { tenant, hash, size, expiresAt } = value
    if (typeof tenant !== "string" || typeof hash !== "string") return undefined
    if (!Number.isSafeInteger(size) || !Number.isSafeInteger(expiresAt)) return undefined
    return { tenant, hash, size: size as number, expiresAt: expiresAt as number }
  } catch {
    return undefined
  }
}

/** Builds grants keyed by `key` (UTF-8). The key is imported once, lazily. */
export const makeGrants = (key: string): Grants => {
  let imported: ReturnType<typeof globalThis.crypto.subtle.importKey> | undefined
  const cryptoKey = () =>
    (imported ??= globalThis.crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]))
  const mac = (text: string) =>
    Effect.promise(async () => new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", await cryptoKey(), encoder.encode(text))))
  const macMatches = (text: string, signature: Uint8Array) =>
    Effect.promise(async () => globalThis.crypto.subtle.verify("HMAC", await cryptoKey(), signature, encoder.encode(text)))

  const sign = (granted: Granted) =>
    Effect.map(mac(payloadText(granted)), (signature) => `${PREFIX}.${Base64Url.encode(payloadText(granted))}.${Base64Url.encode(signature)}`)

  const verify = (grant: string, bound: GrantBound, nowMs: number, skewMs: number) =>
    Effect.gen(function*() {
      const parts = grant.split(".")
      if (parts.length !== 3 || parts[0] !== PREFIX) return Result.fail<InvalidContentRefReason>("malformed")
      const text = Base64Url.decodeString(parts[1]!)
      const signature = Base64Url.decode(parts[2]!)
      if (Result.isFailure(text) || Result.isFailure(signature)) return Result.fail<InvalidContentRefReason>("malformed")
      const granted = parsePayload(text.success)
      if (granted === undefined) return Result.fail<InvalidContentRefReason>("malformed")
      if (!(yield* macMatches(payloadText(granted), signature.success))) return Result.fail<InvalidContentRefReason>("invalid")
      if (granted.tenant !== bound.tenant || granted.hash !== bound.hash || granted.size !== bound.size) {
        return Result.fail<InvalidContentRefReason>("invalid")
      }
      if (granted.expiresAt <= nowMs + skewMs) return Result.fail<InvalidContentRefReason>("expired")
      return Result.succeed(granted.expiresAt)
    })

  return { sign, verify }
}
