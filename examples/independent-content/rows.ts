/**
 * Reading values back from driver rows: drivers disagree on how a BIGINT comes back (number, bigint
 * or decimal text) and on the byte-array class of a BLOB/bytea (Buffer or Uint8Array).
 */

/** A BIGINT/INTEGER column value as a JavaScript number (exact up to 2^53). */
export const toNumber = (value: unknown): number => {
  if (typeof value === "number") return value
  if (typeof value === "bigint") return Number(value)
  if (typeof value === "string" && value.trim() !== "") return Number(value)
  throw new Error(`expected an integer column value, got ${typeof value}`)
}

/** A BLOB/bytea column value as a fresh Uint8Array that owns its bytes; null reads as no bytes. */
export const toBytes = (value: unknown): Uint8Array => {
  if (value === null || value === undefined) return new Uint8Array(0)
  if (value instanceof Uint8Array) return Uint8Array.from(value)
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0))
  throw new Error(`expected a byte column value, got ${typeof value}`)
}
