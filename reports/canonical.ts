/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined` properties dropped.
 * The certificate's integrity digest is a SHA-256 over this form, so any edit of a value, key or
 * array order changes the digest while re-indenting the file does not.
 */
import { createHash } from "node:crypto"

/** Deepest nesting accepted; certificate bodies are a few levels deep. */
const MAX_DEPTH = 64

const canonicalize = (value: unknown, depth: number): string => {
  if (depth > MAX_DEPTH) throw new Error("canonical JSON: value nested deeper than 64 levels")
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`canonical JSON: ${value} is not representable in JSON`)
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalize(item, depth + 1))).join(",")}]`
  if (typeof value === "object") {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalize(record[key], depth + 1)}`).join(",")}}`
  }
  throw new Error(`canonical JSON: a ${typeof value} is not JSON`)
}

/**
 * The canonical JSON text of a value.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export const canonicalJson = (value: unknown): string => canonicalize(value, 0)

/** Lower-case hex SHA-256 of the canonical JSON of a value (UTF-8). */
export const canonicalSha256 = (value: unknown): string => createHash("sha256").update(canonicalJson(value), "utf8").digest("hex")
