/**
 * K3: upload of a body as it arrives. On a client with several connections the chunks are written
 * under a pending name while the body is hashed, all in one transaction; then the row is upserted and
 * the chunks renamed to the hash when the row is new, else dropped. Past `limit` the transaction rolls
 * back. With one connection (`singleConnection`) no transaction may stay open while the body arrives,
 * so the body is buffered in memory and stored as bytes (upstream does the same).
 */
import { Effect, Stream } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { ContentTooLarge, type ContentRef } from "../../subjects/content/api.ts"
import { joinParts, writeChunk } from "./chunks.ts"
import { chunkSink } from "./chunkSink.ts"
import type { StoreContext } from "./context.ts"
import { registerTenant, upsertContent } from "./contentRow.ts"
import { incrementalSha256 } from "./digest.ts"
import { pendingName } from "./pendingName.ts"
import { refOf, uploadBytes } from "./uploadBytes.ts"

/** Stores `body` for `tenant`; a body longer than `limit` (or the store's maximum) stores nothing. */
export const uploadStream = <E>(
  ctx: StoreContext,
  tenant: string,
  body: Stream.Stream<Uint8Array, E>,
  limit: number
): Effect.Effect<ContentRef, E | ContentTooLarge | SqlError> =>
  ctx.settings.singleConnection ? bufferedUpload(ctx, tenant, body, limit) : streamedUpload(ctx, tenant, body, limit)

/** Reads the whole body into memory, refusing it once it passes `limit`, then uploads the bytes. */
const bufferedUpload = <E>(
  ctx: StoreContext,
  tenant: string,
  body: Stream.Stream<Uint8Array, E>,
  limit: number
): Effect.Effect<ContentRef, E | ContentTooLarge | SqlError> =>
  Effect.gen(function*() {
    const parts: Array<Uint8Array> = []
    let size = 0
    yield* Stream.runForEach(body, (part): Effect.Effect<void, ContentTooLarge> => {
      size += part.byteLength
      parts.push(part)
      return size > limit ? Effect.fail(new ContentTooLarge({ maxBytes: limit })) : Effect.void
  })
  return yield* uploadBytes(ctx, tenant, joinParts(parts, size))
  })

/** Writes the body's chunks as it arrives, inside one transaction that also upserts the row. */
const streamedUpload = <E>(
  ctx: StoreContext,
  tenant: string,
  body: Stream.Stream<Uint8Array, E>,
  limit: number
): Effect.Effect<ContentRef, E | ContentTooLarge | SqlError> =>
  Effect.gen(function*() {
    const { sql, settings } = ctx
    const pending = yield* pendingName
    const stored = yield* sql.withTransaction(
      Effect.gen(function*() {
        const digest = incrementalSha256()
        const sink = chunkSink(settings.chunkBytes, (index, bytes) => writeChunk(sql, tenant, pending, index, bytes))
        let size = 0
        yield* Stream.runForEach(body, (part): Effect.Effect<void, ContentTooLarge | SqlError> => {
          size += part.byteLength
          if (size > limit) return Effect.fail(new ContentTooLarge({ maxBytes: limit }))
          digest.update(part)
          return sink.push(part)
        })
        if (size > settings.maxContentBytes) return yield* new ContentTooLarge({ maxBytes: settings.maxContentBytes })
        yield* sink.finish
        const hash = digest.hex()
        yield* registerTenant(ctx, tenant)
        const row = yield* upsertContent(ctx, tenant, hash, size)
        yield* row.inserted
          ? sql`UPDATE tenant_content_chunks SET hash = ${hash} WHERE tenant_id = ${tenant} AND hash = ${pending}`
          : sql`DELETE FROM tenant_content_chunks WHERE tenant_id = ${tenant} AND hash = ${pending}`
        return { hash, size, grantedUntilMs: row.grantedUntilMs }
      })
    )
    return refOf(ctx, tenant, stored.hash, stored.size, stored.grantedUntilMs)
  })
