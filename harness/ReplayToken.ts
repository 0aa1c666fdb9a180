/**
 * One replay token instead of seed + path + replayPath: a versioned, checksummed bundle of everything
 * needed to re-run one failure exactly (suite version, property, implementation, adapter, seed,
 * fast-check path, the minimized scenario and its fault plan).
 *
 * Format: `dc1.<base64url of UTF-8 JSON>.<FNV-1a 32-bit checksum, 8 hex>`. Portable (Node and workerd).
 */
import { Effect } from "effect"
import type { Json } from "./Property.ts"
import { ReplayTokenError } from "./errors.ts"
import { SUITE_VERSION } from "./SuiteVersion.ts"

/** Token format version (the `dc1` prefix). */
export const REPLAY_TOKEN_VERSION = 1

/** The decoded contents of a replay token. */
export interface ReplayTokenPayload {
  readonly suiteVersion: string
  readonly propertyId: string
  /** Implementation the property was bound to (`reference` for the shipped one). */
  readonly implementation: string
  readonly adapter: string
  readonly seed: number
  readonly path: string
  /** The minimized scenario, executed as-is on replay. */
  readonly scenario: Json
  /**
   * Set when the adapter came from a module (`--adapter ./theirs.ts`): its path as the run was given it,
   * relative to the run's working directory (`./theirs.ts`), or absolute when outside it. Replay never
   * imports it: the user must pass the same module with `--adapter`.
   */
  readonly adapterModule?: string
  /** Set when the implementation came from a module (`--implementation ./theirs.ts`): as `adapterModule`, for `--bind`. */
  readonly implementationModule?: string
}

/** Upper bound on a token's length (64 KiB): anything longer is refused as corrupt, not parsed. */
export const MAX_TOKEN_LENGTH = 65_536

const PREFIX = `dc${REPLAY_TOKEN_VERSION}`
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

const toBase64Url = (bytes: Uint8Array): string => {
  let out = ""
  for (let index = 0; index < bytes.length; index += 3) {
    const a = bytes[index]!, b = bytes[index + 1], c = bytes[index + 2]
    const triple = (a << 16) | ((b ?? 0) << 8) | (c ?? 0)
    out += ALPHABET[(triple >> 18) & 63]! + ALPHABET[(triple >> 12) & 63]!
    if (b !== undefined) out += ALPHABET[(triple >> 6) & 63]!
    if (c !== undefined) out += ALPHABET[triple & 63]!
  }
  return out
}

const fromBase64Url = (text: string): Uint8Array | undefined => {
  const values: Array<number> = []
  for (const char of text) {
    const value = ALPHABET.indexOf(char)
    if (value < 0) return undefined
    values.push(value)
  }
  if (values.length % 4 === 1) return undefined
  const bytes: Array<number> = []
  for (let index = 0; index < values.length; index += 4) {
    const chunk = values.slice(index, index + 4)
    const triple = (chunk[0]! << 18) | ((chunk[1] ?? 0) << 12) | ((chunk[2] ?? 0) << 6) | (chunk[3] ?? 0)
    bytes.push((triple >> 16) & 255)
    if (chunk.length > 2) bytes.push((triple >> 8) & 255)
    if (chunk.length > 3) bytes.push(triple & 255)
  }
  return Uint8Array.from(bytes)
}

/** FNV-1a 32-bit of a string, as 8 hex digits (corruption detection, not security). */
export const checksum32 = (text: string): string => {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

/** Encodes a payload as a token. */
export const encodeReplayToken = (payload: ReplayTokenPayload): string => {
  const body = toBase64Url(new TextEncoder().encode(JSON.stringify(payload)))
  return `${PREFIX}.${body}.${checksum32(body)}`
}

const corrupt = (why: string) =>
  new ReplayTokenError({
    message: `the replay token is corrupt: ${why}`,
    hint: "copy the whole token from the report (it starts with dc1.), or pass the report.json file instead"
  })

const isPayload = (value: unknown): value is ReplayTokenPayload => {
  if (typeof value !== "object" || value === null) return false
  const record = value as Record<string, unknown>
  return typeof record.suiteVersion === "string" && typeof record.propertyId === "string" &&
    typeof record.implementation === "string" && typeof record.adapter === "string" &&
    typeof record.seed === "number" && Number.isInteger(record.seed) && typeof record.path === "string" &&
    "scenario" in record &&
    (record.adapterModule === undefined || typeof record.adapterModule === "string") &&
    (record.implementationModule === undefined || typeof record.implementationModule === "string")
}

/**
 * Decodes and checks a token: format, checksum, shape, and that it was made by this suite version.
 * Fails with `ReplayTokenError` saying what is wrong and what to do.
 */
export const decodeReplayToken = (token: string): Effect.Effect<ReplayTokenPayload, ReplayTokenError> =>
  Effect.suspend(() => {
    const trimmed = token.trim()
    if (trimmed.length > MAX_TOKEN_LENGTH) return Effect.fail(corrupt(`longer than ${MAX_TOKEN_LENGTH} characters`))
    const parts = trimmed.split(".")
    if (parts.length !== 3) return Effect.fail(corrupt("expected three dot-separated parts"))
    const [prefix, body, sum] = parts as [string, string, string]
    if (!/^dc\d+$/.test(prefix)) return Effect.fail(corrupt(`unknown prefix "${prefix.slice(0, 16)}"`))
    if (prefix !== PREFIX) {
      return Effect.fail(new ReplayTokenError({
        message: `the replay token has format ${prefix}, this harness reads ${PREFIX}`,
        hint: "replay it with the durable-conformance version that wrote it"
      }))
    }
    if (checksum32(body) !== sum) return Effect.fail(corrupt("checksum mismatch (the token was truncated or edited)"))
    const bytes = fromBase64Url(body)
    if (bytes === undefined) return Effect.fail(corrupt("body is not base64url"))
    let parsed: unknown
    try {
      parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
    } catch {
      return Effect.fail(corrupt("body is not JSON"))
    }
    if (!isPayload(parsed)) return Effect.fail(corrupt("body lacks required fields"))
    if (parsed.suiteVersion !== SUITE_VERSION) {
      return Effect.fail(new ReplayTokenError({
        message: `the replay token was made by suite version ${parsed.suiteVersion}, this is ${SUITE_VERSION}`,
        hint: `install durable-conformance@${parsed.suiteVersion} to replay it, or re-run the conformance gate to get a fresh token`
      }))
    }
    return Effect.succeed(parsed)
  })
