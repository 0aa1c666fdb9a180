/**
 * The content row of an upload (K2, K3): registers the tenant for sweeping, then creates the row or
 * raises its horizon to `greatest(old, NOW + L)`, saying which happened.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { nowMs, type StoreContext } from "./context.ts"
import { toNumber } from "./rows.ts"

/** The row after an upload's upsert: whether this upload created it, and its horizon. */
export interface UpsertedRow {
  readonly inserted: boolean
  readonly grantedUntilMs: number
}

/** Attempts at the insert-or-raise pair; a second attempt is needed only when a sweep deleted the row between them. */
const UPSERT_ATTEMPTS = 4

/** Makes the tenant known to the sweep; an already known tenant keeps its schedule. */
export const registerTenant = (ctx: StoreContext, tenant: string): Effect.Effect<void, SqlError> =>
  ctx.sql`INSERT INTO tenant_content_sweeps (tenant_id, swept_at_ms) VALUES (${tenant}, 0)
    ON CONFLICT (tenant_id) DO NOTHING`.pipe(Effect.asVoid)

/**
 * Creates the content row, or raises the existing row's horizon under its row lock. Portable: an
 * insert that does nothing on conflict, then an update; when a sweep deletes the row between the two,
 * the insert is tried again. Run inside the upload's transaction.
 */
export const upsertContent = Effect.fnUntraced(function*(ctx: StoreContext, tenant: string, hash: string, size: number) {
  const { sql } = ctx
  for (let attempt = 0; attempt < UPSERT_ATTEMPTS; attempt += 1) {
    const until = (yield* nowMs) + ctx.settings.grantLifetimeMs
    const created = yield* sql<{ readonly granted_until_ms: unknown }>`
      INSERT INTO tenant_contents (tenant_id, hash, size, granted_until_ms)
      VALUES (${tenant}, ${hash}, ${size}, ${until})
      ON CONFLICT (tenant_id, hash) DO NOTHING
      RETURNING granted_until_ms`
    if (created[0] !== undefined) {
      return { inserted: true, grantedUntilMs: toNumber(created[0].granted_until_ms) } satisfies UpsertedRow
    }
    const raised = yield* sql<{ readonly granted_until_ms: unknown }>`
      UPDATE tenant_contents SET granted_until_ms = ${ctx.d.larger("tenant_contents.granted_until_ms", until)}
      WHERE tenant_id = ${tenant} AND hash = ${hash}
      RETURNING granted_until_ms`
    if (raised[0] !== undefined) {
      return { inserted: false, grantedUntilMs: toNumber(raised[0].granted_until_ms) } satisfies UpsertedRow
    }
  }
  return yield* Effect.die(new Error(`content row ${hash} of ${tenant} vanished ${UPSERT_ATTEMPTS} times during one upload`))
})
