/**
 * K5: references from actors to content. Attach checks the grant only (never the content row):
 * malformed, then signed for this tenant, hash and size, then expiring after NOW + S. Detach deletes
 * one reference.
 */
import { Effect, Result } from "effect"
import { type ContentAttachment, type ContentRef, InvalidContentRef } from "../../subjects/content/api.ts"
import type { StoreContext } from "./context.ts"
import { verifyGrant } from "./verifyGrant.ts"

/** Verifies `ref`'s grant and records the reference, replacing the one held under the same name. */
export const attach = Effect.fnUntraced(function*(ctx: StoreContext, attachment: ContentAttachment & { readonly ref: ContentRef }) {
  const { tenant, actor, blob, name, ref } = attachment
  const verified = yield* verifyGrant(ctx, ref.grant, { tenant, hash: ref.hash, size: ref.size })
  if (Result.isFailure(verified)) return yield* new InvalidContentRef({ reason: verified.failure })
  yield* ctx.sql`INSERT INTO actor_content_refs (tenant_id, actor, blob, name, hash, size)
    VALUES (${tenant}, ${actor}, ${blob}, ${name}, ${ref.hash}, ${ref.size})
    ON CONFLICT (tenant_id, actor, blob, name) DO UPDATE SET hash = excluded.hash, size = excluded.size`
})

/** Deletes the reference `attachment` names; whether there was one. */
export const detach = Effect.fnUntraced(function*(ctx: StoreContext, attachment: ContentAttachment) {
  const { tenant, actor, blob, name } = attachment
  const gone = yield* ctx.sql`DELETE FROM actor_content_refs
    WHERE tenant_id = ${tenant} AND actor = ${actor} AND blob = ${blob} AND name = ${name}
    RETURNING hash`
  return gone.length > 0
})
