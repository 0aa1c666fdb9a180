/**
 * Content digests of stored values. The journal names a completion's value by digest only; the value
 * itself stays in its row (the journal is redacted and replayed). A digest names the JSON *value*:
 * object keys are sorted first, so equal values spelled in another key order get the same digest.
 */
import { createHash } from "node:crypto"

/** The JSON text of `value` with every object's keys in code-unit order. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** SHA-256 of the canonical form of stored JSON text, as `sha256:<hex>`; null for an absent value. */
export const digestOf = (storedJson: string | null): string | null =>
  storedJson === null
    ? null
    : `sha256:${createHash("sha256").update(canonicalJson(JSON.parse(storedJson)), "utf8").digest("hex")}`
