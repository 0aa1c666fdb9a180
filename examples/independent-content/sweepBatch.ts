/**
 * One batch of a tenant's sweep (K6): the reference scan for the candidates, then one delete of the
 * unreferenced ones whose horizon is still below the re-check bound when the delete reads the row,
 * together with all their chunks.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import type { StoreContext } from "./context.ts"
import { toNumber } from "./rows.ts"

/** The candidate hashes some actor of `tenant` references (read outside any transaction). */
export const referencedHashes = (
  ctx: StoreContext,
  tenant: string,
  hashes: ReadonlyArray<string>
): Effect.Effect<ReadonlySet<string>, SqlError> =>
  ctx.sql<{ readonly hash: string }>`SELECT DISTINCT hash FROM actor_content_refs
    WHERE tenant_id = ${tenant} AND hash IN ${ctx.sql.in(hashes)}`.pipe(
    Effect.map((rows) => new Set(rows.map((row) => row.hash)))
  )

/**
 * Deletes the rows of `hashes` still below `recheckBeforeMs`, and their chunks, atomically: one
 * statement on Postgres; one transaction of two statements on SQLite (one connection, so no reader
 * sees between them). The number of content rows deleted.
 */
export const deleteUnreferenced = (
  ctx: StoreContext,
  tenant: string,
  hashes: ReadonlyArray<string>,
  recheckBeforeMs: number
): Effect.Effect<number, SqlError> => {
  const { sql } = ctx
  if (hashes.length === 0) return Effect.succeed(0)
  if (ctx.d.deletesAcrossTables) {
    return sql<{ readonly deleted: unknown }>`
      WITH gone AS (
        DELETE FROM tenant_contents
        WHERE tenant_id = ${tenant} AND hash IN ${sql.in(hashes)} AND granted_until_ms < ${recheckBeforeMs}
        RETURNING hash),
      chunks AS (
        DELETE FROM tenant_content_chunks
        WHERE tenant_id = ${tenant} AND hash IN (SELECT hash FROM gone))
      SELECT count(*) AS deleted FROM gone`.pipe(Effect.map(([row]) => (row === undefined ? 0 : toNumber(row.deleted))))
  }
  return sql.withTransaction(
    Effect.gen(function*() {
      const gone = yield* sql<{ readonly hash: string }>`DELETE FROM tenant_contents
        WHERE tenant_id = ${tenant} AND hash IN ${sql.in(hashes)} AND granted_until_ms < ${recheckBeforeMs}
        RETURNING hash`
      if (gone.length === 0) return 0
      yield* sql`DELETE FROM tenant_content_chunks
        WHERE tenant_id = ${tenant} AND hash IN ${sql.in(gone.map((row) => row.hash))}`
      return gone.length
    })
  )
}
