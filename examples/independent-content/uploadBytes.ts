/**
 * K2: upload of bytes already in memory, in one transaction: the tenant is registered for sweeping,
 * the row created or its horizon raised, and chunks 0..n-1 written only when the row is new.
 */
import { Effect } from "effect"
import { ContentTooLarge, type ContentRef } from "../../subjects/content/api.ts"
import { cutChunks, writeChunk } from "./chunks.ts"
import type { StoreContext } from "./context.ts"
import { registerTenant, upsertContent } from "./contentRow.ts"
import { sha256Hex } from "./digest.ts"

/** Signs the grant an upload or grant returns: its expiry is the row's horizon (K2, K4). */
export const refOf = (ctx: StoreContext, tenant: string, hash: string, size: number, expiresAt: number): ContentRef => ({
  hash,
  size,
  grant: ctx.grants.sign({ tenant, hash, size, expiresAt })
})

/** Stores `bytes` for `tenant`; content the tenant already holds writes no bytes. */
export const uploadBytes = Effect.fnUntraced(function*(ctx: StoreContext, tenant: string, bytes: Uint8Array) {
  const { maxContentBytes, chunkBytes } = ctx.settings
  if (bytes.byteLength > maxContentBytes) return yield* new ContentTooLarge({ maxBytes: maxContentBytes })
  const hash = sha256Hex(bytes)
  const size = bytes.byteLength
  const row = yield* ctx.sql.withTransaction(
    Effect.gen(function*() {
      yield* registerTenant(ctx, tenant)
      const upserted = yield* upsertContent(ctx, tenant, hash, size)
      if (upserted.inserted) {
        const chunks = cutChunks(bytes, chunkBytes)
        for (const [index, chunk] of chunks.entries()) yield* writeChunk(ctx.sql, tenant, hash, index, chunk)
      }
      return upserted
    })
  )
  return refOf(ctx, tenant, hash, size, row.grantedUntilMs)
})
