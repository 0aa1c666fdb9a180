/**
 * The calls the content properties make on an implementation, and their results as JSON in the
 * shapes the model predicts: errors by tag (`ContentTooLarge`, `InvalidContentRef:<reason>`,
 * `SqlError`, `NoSuchElementError`, `BodyFailed`, otherwise `defect:<message>`), bytes by identity
 * (`{hash, size}` when they are exactly the payload asked for), grants by their expiry as the store's
 * own `verify` reads it.
 */
import { Data, Effect, Exit, Option, Result, Stream } from "effect"
import { isSqlError } from "effect/sql/SqlError"
import { type ErrorFieldCatalog, namedWithDefects } from "../../harness/ErrorShape.ts"
import type { Json } from "../../harness/Property.ts"
import { exitJson as coreExitJson } from "../../harness/ModelBased.ts"
import { sameBytes } from "../../harness/SameBytes.ts"
import type { ContentRef, ContentStore } from "../../subjects/content/api.ts"
import { STREAM_TIMEOUT_MS } from "./config.ts"

/** The failure of a scripted upload body. */
export class BodyFailed extends Data.TaggedError("BodyFailed")<{}> {}

/** Bytes of a streamed body per part (not a multiple of the chunk size, so parts straddle chunks). */
export const BODY_PART_BYTES = 3

/** Most parts a streamed body is cut in (a 1 MiB body in parts of 3 bytes would be 350,000 stream elements). */
export const MAX_BODY_PARTS = 64

/**
 * The fields upstream's content errors carry (seed 001): `ContentTooLarge.make({ maxBytes: limit })`.
 * `InvalidContentRef`'s `reason` is named in the tag itself.
 */
const CONTENT_ERROR_FIELDS: ErrorFieldCatalog = { ContentTooLarge: { maxBytes: "present" } }

/** The error of a failed call, by tag (with the fields it lacks, `harness/ErrorShape.ts`). */
export const errorTag = (error: unknown): string => {
  const tag = typeof error === "object" && error !== null ? (error as { readonly _tag?: unknown })._tag : undefined
  if (tag === "ContentTooLarge") return namedWithDefects(tag, error, CONTENT_ERROR_FIELDS)
  if (tag === "NoSuchElementError" || tag === "BodyFailed") return tag
  if (tag === "InvalidContentRef") return `InvalidContentRef:${String((error as { readonly reason?: unknown }).reason)}`
  if (tag === "Refused") return String((error as { readonly reason?: unknown }).reason)
  if (isSqlError(error)) return "SqlError"
  return `defect:${error instanceof Error ? error.message : String(error)}`
}

/** A body of `bytes` in parts; failing after its first part when `fails`. */
export const bodyOf = (bytes: Uint8Array, fails: boolean): Stream.Stream<Uint8Array, BodyFailed> => {
  const parts: Array<Uint8Array> = []
  // Parts of 3 bytes cross every small chunk's edge; a large body is cut in at most `MAX_BODY_PARTS` parts.
  const partBytes = Math.max(BODY_PART_BYTES, Math.ceil(bytes.byteLength / MAX_BODY_PARTS))
  for (let offset = 0; offset < bytes.byteLength; offset += partBytes) parts.push(bytes.slice(offset, offset + partBytes))
  if (parts.length === 0) parts.push(new Uint8Array(0))
  return fails ? Stream.concat(Stream.fromArray(parts.slice(0, 1)), Stream.fail(new BodyFailed())) : Stream.fromArray(parts)
}

/** Bytes as the model names them: `{hash, size}` when they equal `expected`, else what they were. */
export const bytesJson = (bytes: Uint8Array, expected: { readonly hash: string; readonly bytes: Uint8Array }): Json => {
  return sameBytes(expected.bytes, bytes) ? { hash: expected.hash, size: bytes.byteLength } : { unexpectedBytes: Array.from(bytes.slice(0, 32)), size: bytes.byteLength }
}

/** A returned grant as the model predicts it: its expiry, as the store's `verify` reads it for `tenant`. */
export const grantJson = (store: ContentStore, tenant: string, ref: ContentRef): Effect.Effect<Json> =>
  Effect.map(store.verify(ref.grant, { tenant, hash: ref.hash, size: ref.size }), (verified) =>
    Result.isSuccess(verified) ? { expiresAt: verified.success } : { refused: verified.failure })

type JsonRecord = { readonly [key: string]: Json }

const isJsonRecord = (value: Json): value is JsonRecord => value !== null && typeof value === "object" && !Array.isArray(value)

/**
 * A predicted grant (`{..., expiresAt}`) as `grantJson` reads a returned one: through the store's
 * `verify` at `atMs`, which refuses a grant expiring at or before `atMs + S` (K5). Under a lifetime L
 * at most S every grant is born expired, and reads as `{..., refused: "expired"}`.
 */
export const grantAsRead = (predicted: Json, atMs: number, skewMs: number): Json => {
  if (!isJsonRecord(predicted)) return predicted
  const { expiresAt, ...rest } = predicted
  return typeof expiresAt === "number" && expiresAt <= atMs + skewMs ? { ...rest, refused: "expired" } : predicted
}

/**
 * A predicted result of an operation of `kind` as the harness reads it: the grant an upload, a grant
 * or a grant-and-attach returns is read through `verify` at the operation's time (`grantAsRead`).
 */
export const resultAsRead = (kind: string, result: Json, atMs: number, skewMs: number): Json => {
  if (!isJsonRecord(result) || result["_tag"] !== "Success") return result
  const value = result["value"] ?? null
  if (kind === "uploadBytes" || kind === "uploadStream" || kind === "grant") return { ...result, value: grantAsRead(value, atMs, skewMs) }
  if (kind !== "grantAndAttach" || !isJsonRecord(value)) return result
  return { ...result, value: { ...value, grant: grantAsRead(value["grant"] ?? null, atMs, skewMs) } }
}

/** An upload result: `{hash, size, expiresAt}`. */
export const uploadJson = (store: ContentStore, tenant: string, ref: ContentRef): Effect.Effect<Json> =>
  Effect.map(grantJson(store, tenant, ref), (grant) => ({ hash: ref.hash, size: ref.size, ...(grant as Record<string, Json>) }))

/** Reads the whole stream, or only its first chunk when `interrupt` (the consumer stops there). */
export const streamJson = (store: ContentStore, bound: { readonly tenant: string; readonly hash: string; readonly size: number }, interrupt: boolean, expected: Uint8Array) =>
  Effect.gen(function*() {
    const stream = store.stream(bound.tenant, bound.hash, bound.size, STREAM_TIMEOUT_MS)
    if (interrupt) {
      const first = yield* Stream.runCollect(Stream.take(stream, 1))
      return first.length === 1 ? ("interrupted" as Json) : ({ emptyStream: true } as Json)
    }
    const parts = yield* Stream.runCollect(stream)
    return bytesJson(concatenated(parts), { hash: bound.hash, bytes: expected })
  })

/** The parts a stream emitted, as one array. */
export const concatenated = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.byteLength
  }
  return bytes
}

/** A grant's JSON: null for none. */
export const optionalGrantJson = (store: ContentStore, tenant: string, granted: Option.Option<ContentRef>): Effect.Effect<Json> =>
  Option.isNone(granted) ? Effect.succeed(null) : grantJson(store, tenant, granted.value)

/** An exit as a step's result: its value, or its failure's (or, with none, its defect's) tag (the core's `exitJson`). */
export const exitJson = (exit: Exit.Exit<Json, unknown>): Json => coreExitJson(exit, (value) => value, errorTag)
