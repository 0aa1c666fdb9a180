/**
 * The content store skeleton: uploads (bytes and stream), grants, attach/detach, reads, streams and
 * the sweep, wired from named pieces (`pieces.ts`) over the statements of `store.ts`.
 *
 * Time comes from Effect's `Clock` and is passed to SQL as parameters; the pending name of a streamed
 * upload comes from Effect's `Random`. Hook points (`CONTENT_HOOK_POINTS`) are named after upstream's
 * content points and only pause under the harness.
 */
import { Cause, Clock, Effect, Option, Random, Result, Stream } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { hookPoint } from "../../harness/HookPoints.ts"
import {
  type ContentAttachment,
  type ContentImplementation,
  type ContentMakeOptions,
  type ContentRef,
  type ContentSettings,
  type ContentStore,
  ContentTooLarge,
  DEFAULT_CONTENT_SETTINGS,
  InvalidContentRef
} from "./api.ts"
import { contentDialect, type OnSnapshot, openSnapshot } from "./dialect.ts"
import { makeGrants } from "./grants.ts"
import type { ContentPieces } from "./pieces.ts"
import { ensureTables } from "./schema.ts"
import { type Candidate, type ContentStatements, makeContentStatements } from "./store.ts"

/** Hook points an implementation may offer (upstream's content points, prefixed). */
export const CONTENT_HOOK_POINTS: ReadonlyArray<string> = [
  "content.beforeUpload",
  "content.afterUpsert",
  "content.beforeRaise",
  "content.afterRaise",
  "content.beforeAttach",
  "content.beforeDetach",
  "content.afterResolve",
  "content.afterReferenceScan",
  "content.afterDelete"
]

/** The actor type this store records its turn budget under. */
export const CONTENT_ACTOR_TYPE = "content"

/** Bound on candidate batches of one tenant in one pass (a runaway paging loop is a defect). */
export const MAX_SWEEP_BATCHES = 1_000_000

/** Lowercase hex SHA-256 of `bytes` (WebCrypto). */
export const sha256Hex = (bytes: Uint8Array): Effect.Effect<string> =>
  Effect.promise(async () => {
    const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes))
    return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")
  })

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.byteLength
  }
  return bytes
}

/** A pending chunk name from Effect's `Random` (deterministic under a seeded `Random`). */
const pendingName = Effect.map(Random.nextIntBetween(0, 0x7fff_ffff), (n) => `pending:${n.toString(16)}`)

/** Builds `make` for an implementation assembled from `pieces`. */
export const makeContentStore = (pieces: ContentPieces) => (options: ContentMakeOptions): Effect.Effect<ContentStore, SqlError> =>
  Effect.gen(function*() {
    const settings: ContentSettings = { ...DEFAULT_CONTENT_SETTINGS, ...options.settings }
    const dialect = contentDialect(options.dialect, settings.singleConnection)
    const sql = options.sql
    const statements = makeContentStatements(sql, dialect)
    const grants = makeGrants(settings.grantKey)
    yield* sql.withTransaction(ensureTables(sql, dialect, CONTENT_ACTOR_TYPE, settings.turnMs, pieces.recordedTurnSql))

    const refOf = (tenant: string, hash: string, size: number, expiresAt: number): Effect.Effect<ContentRef> =>
      Effect.map(grants.sign({ tenant, hash, size, expiresAt }), (grant) => ({ hash, size, grant }))

    const uploadBytes = (tenant: string, bytes: Uint8Array) =>
      Effect.gen(function*() {
        if (bytes.byteLength > settings.maxContentBytes) return yield* new ContentTooLarge({ maxBytes: settings.maxContentBytes })
        const hash = yield* sha256Hex(bytes)
        const size = bytes.byteLength
        yield* hookPoint("content.beforeUpload")
        const stored = yield* sql.withTransaction(Effect.gen(function*() {
          const row = yield* statements.upsertContent(tenant, hash, size, (yield* Clock.currentTimeMillis) + settings.grantLifetimeMs)
          if (row.inserted) {
            for (let chunk = 0; chunk === 0 || chunk * settings.chunkBytes < size; chunk++) {
              yield* statements.writeChunk(tenant, hash, chunk, bytes.subarray(chunk * settings.chunkBytes, (chunk + 1) * settings.chunkBytes))
            }
          }
          yield* hookPoint("content.afterUpsert")
          return row
        }))
        return yield* refOf(tenant, hash, size, stored.grantedUntilMs)
      })

    const uploadStream = <E>(tenant: string, body: Stream.Stream<Uint8Array, E>, limit: number) =>
      Effect.gen(function*() {
        const maxBytes = Math.min(limit, settings.maxContentBytes)
        if (settings.singleConnection) {
          const parts: Array<Uint8Array> = []
          let size = 0
          yield* Stream.runForEach(body, (part) => {
            size += part.byteLength
            parts.push(part)
            return size > maxBytes ? Effect.fail(new ContentTooLarge({ maxBytes })) : Effect.void
          })
          return yield* uploadBytes(tenant, concat(parts, size))
        }
        return yield* streamedUpload(tenant, body, maxBytes)
      })

    const streamedUpload = <E>(tenant: string, body: Stream.Stream<Uint8Array, E>, maxBytes: number) =>
      Effect.gen(function*() {
        const pending = yield* pendingName
        yield* hookPoint("content.beforeUpload")
        const stored = yield* sql.withTransaction(Effect.gen(function*() {
          const parts: Array<Uint8Array> = []
          let size = 0
          let chunk = 0
          let buffer = new Uint8Array(settings.chunkBytes)
          let filled = 0
          const flush = Effect.suspend(() => {
            const bytes = buffer.slice(0, filled)
            buffer = new Uint8Array(settings.chunkBytes)
            filled = 0
            return statements.writeChunk(tenant, pending, chunk++, bytes)
          })
          yield* Stream.runForEach(body, (part) =>
            Effect.gen(function*() {
              size += part.byteLength
              if (size > maxBytes) return yield* new ContentTooLarge({ maxBytes })
              parts.push(part)
              for (let read = 0; read < part.byteLength;) {
                const taken = Math.min(settings.chunkBytes - filled, part.byteLength - read)
                buffer.set(part.subarray(read, read + taken), filled)
                filled += taken
                read += taken
                if (filled === settings.chunkBytes) yield* flush
              }
            }))
          if (filled > 0 || chunk === 0) yield* flush
          // WebCrypto has no incremental SHA-256: the body's parts are digested once, at the end.
          const hash = yield* sha256Hex(concat(parts, size))
          const row = yield* statements.upsertContent(tenant, hash, size, (yield* Clock.currentTimeMillis) + settings.grantLifetimeMs)
          yield* statements.settlePending(tenant, pending, hash, row.inserted)
          yield* hookPoint("content.afterUpsert")
          return { hash, size, expiresAt: row.grantedUntilMs }
        }))
        return yield* refOf(tenant, stored.hash, stored.size, stored.expiresAt)
      })

    const grant = (tenant: string, hash: string, size: number) =>
      Effect.gen(function*() {
        const untilMs = (yield* Clock.currentTimeMillis) + settings.grantLifetimeMs
        const raised = yield* pieces.raiseGrant(statements, { tenant, hash, size }, untilMs)
        if (raised === undefined) return Option.none<ContentRef>()
        return Option.some(yield* refOf(tenant, hash, size, raised))
      })

    const attach = (attachment: ContentAttachment & { readonly ref: ContentRef }) =>
      Effect.gen(function*() {
        yield* hookPoint("content.beforeAttach")
        const { ref, ...at } = attachment
        const verified = yield* pieces.verifyGrant(grants, ref.grant, { tenant: at.tenant, hash: ref.hash, size: ref.size }, yield* Clock.currentTimeMillis, settings.skewMs)
        if (Result.isFailure(verified)) return yield* new InvalidContentRef({ reason: verified.failure })
        yield* sql.withTransaction(statements.insertRef(at, ref.hash, ref.size))
      })

    const detach = (attachment: ContentAttachment) =>
      Effect.andThen(hookPoint("content.beforeDetach"), sql.withTransaction(statements.deleteRef(attachment)))

    const read = (tenant: string, hash: string, size: number) =>
      Effect.andThen(hookPoint("content.afterResolve"), Effect.map(statements.readChunks(tenant, hash), (rows) => pieces.assemble(rows, size)))

    const stream = (tenant: string, hash: string, size: number, timeoutMs: number) =>
      streamOf(statements, pieces, dialect.snapshotStreams, { tenant, hash, size }).pipe(
        Stream.interruptWhen(Effect.andThen(Effect.sleep(timeoutMs), Effect.die(new Error("A content stream outlived commandTimeout"))))
      )

    const sweep = (force: boolean) => sweepPass(statements, pieces, settings, force)

    const verify = (grantText: string, bound: { readonly tenant: string; readonly hash: string; readonly size: number }) =>
      Effect.flatMap(Clock.currentTimeMillis, (nowMs) => pieces.verifyGrant(grants, grantText, bound, nowMs, settings.skewMs))

    const store: ContentStore = { uploadBytes, uploadStream, grant, attach, detach, read, stream, sweep, verify }
    return store
  })

/** K7: a stream of the content's chunks, checked complete before anything is emitted. */
const streamOf = (
  statements: ContentStatements,
  pieces: ContentPieces,
  snapshot: boolean,
  bound: { readonly tenant: string; readonly hash: string; readonly size: number }
): Stream.Stream<Uint8Array, Cause.NoSuchElementError> => {
  const missing = () => new Cause.NoSuchElementError(`Content ${bound.hash} is not stored`)
  if (!snapshot) {
    return Stream.unwrap(Effect.gen(function*() {
      yield* hookPoint("content.afterResolve")
      const rows = yield* statements.readChunks(bound.tenant, bound.hash)
      const head = { chunks: rows.length, last: rows.length === 0 ? -1 : rows[rows.length - 1]!.chunk, bytes: rows.reduce((sum, row) => sum + row.bytes.byteLength, 0) }
      if (!pieces.streamComplete(head, bound.size)) return Stream.fail(missing())
      // One chunk per pull, so the timeout can end a slow consumer between chunks.
      return Stream.fromIterable(rows.map((row) => row.bytes), { chunkSize: 1 })
    }).pipe(Effect.orDie))
  }
  return Stream.unwrap(Effect.gen(function*() {
    const onSnapshot: OnSnapshot = yield* openSnapshot(statements.sql)
    yield* hookPoint("content.afterResolve")
    const sql = statements.sql
    const [head] = yield* onSnapshot(sql<Record<string, unknown>>`
      SELECT count(*)::int AS chunks, COALESCE(max(chunk), -1) AS last, COALESCE(sum(octet_length(bytes)), 0)::float8 AS bytes
      FROM tenant_content_chunks WHERE tenant_id = ${bound.tenant} AND hash = ${bound.hash}`)
    const seen = { chunks: Number(head!["chunks"]), last: Number(head!["last"]), bytes: Number(head!["bytes"]) }
    if (!pieces.streamComplete(seen, bound.size)) return Stream.fail(missing())
    return Stream.range(0, seen.chunks - 1).pipe(
      Stream.mapEffect((chunk) => onSnapshot(statements.readChunk(bound.tenant, bound.hash, chunk)).pipe(Effect.map((bytes) => bytes ?? new Uint8Array(0)), Effect.orDie))
    )
  }).pipe(Effect.orDie))
}

/** K6: one sweep pass over the tenants due (all when forced); the number of content rows deleted. */
const sweepPass = (statements: ContentStatements, pieces: ContentPieces, settings: ContentSettings, force: boolean) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const tenants = yield* pieces.tenantsOfPass(statements, force, started, settings.sweepIntervalMs, settings.sweepTenants)
    const turnMs = yield* statements.longestTurnMs
    const horizons = { graceMs: settings.graceMs, turnMs, skewMs: settings.skewMs }
    let deleted = 0
    for (const tenant of tenants) {
      const sweepStart = yield* Clock.currentTimeMillis
      deleted += yield* sweepTenant(statements, pieces, settings, tenant, pieces.candidateBeforeMs(sweepStart, horizons), pieces.recheckBeforeMs(sweepStart, horizons))
    }
    return deleted
  })

const sweepTenant = (statements: ContentStatements, pieces: ContentPieces, settings: ContentSettings, tenant: string, candidateBeforeMs: number, recheckBeforeMs: number) =>
  Effect.gen(function*() {
    let deleted = 0
    let after: Candidate = { grantedUntilMs: Number.MIN_SAFE_INTEGER, hash: "" }
    for (let batch = 0; batch < MAX_SWEEP_BATCHES; batch++) {
      const candidates = yield* statements.candidates(tenant, candidateBeforeMs, after, settings.sweepBatch)
      if (candidates.length === 0) return deleted
      after = pieces.nextPage(candidates[candidates.length - 1]!)
      const referenced = yield* pieces.scanReferences(statements, tenant, candidates.map((row) => row.hash))
      yield* hookPoint("content.afterReferenceScan")
      const unreferenced = candidates.map((row) => row.hash).filter((hash) => !referenced.has(hash))
      if (unreferenced.length > 0) deleted += yield* pieces.deleteUnreferenced(statements, tenant, unreferenced, recheckBeforeMs)
    }
    return yield* Effect.die(new Error(`sweep of tenant ${tenant} paged past ${MAX_SWEEP_BATCHES} batches`))
  })

/** Builds an implementation named `name` from `pieces`. */
export const contentImplementation = (name: string, pieces: ContentPieces): ContentImplementation => ({
  name,
  make: makeContentStore(pieces)
})
