/**
 * SHA-256 of content (K1: identity is `(tenant, sha256(bytes))`), as lowercase hex, whole or
 * incrementally while a body streams in.
 */
import { createHash } from "node:crypto"

/** Lowercase hex SHA-256 of bytes already in memory. */
export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/** An incremental SHA-256: feed parts in order, then read the hex digest once. */
export interface IncrementalDigest {
  readonly update: (part: Uint8Array) => void
  readonly hex: () => string
}

/** Starts an incremental SHA-256. */
export const incrementalSha256 = (): IncrementalDigest => {
  const hash = createHash("sha256")
  return {
    update: (part) => {
      hash.update(part)
    },
    hex: () => hash.digest("hex")
  }
}
