/**
 * Builds the content store over one client: creates the tables when missing, records this store's
 * turn budget, and wires the operations to the shared context.
 */
import { Effect } from "effect"
import type { ContentMakeOptions, ContentStore } from "../../subjects/content/api.ts"
import type { StoreContext } from "./context.ts"
import { dialectSql } from "./dialect.ts"
import { grantContent } from "./grantContent.ts"
import { makeGrants } from "./grants.ts"
import { read, stream } from "./reads.ts"
import { attach, detach } from "./references.ts"
import { ensureSchema, registerTurn } from "./schema.ts"
import { resolveSettings } from "./settings.ts"
import { sweep } from "./sweep.ts"
import { uploadBytes } from "./uploadBytes.ts"
import { uploadStream } from "./uploadStream.ts"
import { verifyGrant } from "./verifyGrant.ts"

/** The store over `options.sql`; running it again on the same database is a restart. */
export const makeStore = Effect.fnUntraced(function*(options: ContentMakeOptions) {
  const settings = resolveSettings(options.settings)
  const d = dialectSql(options.sql, options.dialect)
  const ctx: StoreContext = { sql: options.sql, d, settings, grants: makeGrants(settings.grantKey) }
  yield* ensureSchema(ctx.sql, d)
  yield* registerTurn(ctx.sql, d, settings.turnMs)
  const store: ContentStore = {
    uploadBytes: (tenant, bytes) => uploadBytes(ctx, tenant, bytes),
    uploadStream: (tenant, body, limit) => uploadStream(ctx, tenant, body, limit),
    grant: (tenant, hash, size) => grantContent(ctx, tenant, hash, size),
    attach: (attachment) => attach(ctx, attachment),
    detach: (attachment) => detach(ctx, attachment),
    read: (tenant, hash, size) => read(ctx, tenant, hash, size),
    stream: (tenant, hash, size, timeoutMs) => stream(ctx, tenant, hash, size, timeoutMs),
    sweep: (force) => sweep(ctx, force),
    verify: (grant, bound) => verifyGrant(ctx, grant, bound)
  }
  return store
})
