/**
 * The SQL statements of the content subject over one `SqlClient`, with upstream's table and column
 * names. Every time is a parameter (epoch ms from Effect's `Clock`); no statement reads the database
 * clock. Each statement runs in whatever transaction the calling fiber is in.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ContentAttachment } from "./api.ts"
import { type ContentDialect, readBytes, readInteger } from "./dialect.ts"
import { CHUNKS_TABLE, CONTENTS_TABLE, REFS_TABLE, SWEEPS_TABLE, tenantRoutingKey, TYPES_TABLE } from "./schema.ts"

/** One stored chunk. */
export interface ChunkRow {
  readonly chunk: number
  readonly bytes: Uint8Array
}

/** What an upsert of a content row did. */
export interface Upserted {
  readonly inserted: boolean
  readonly grantedUntilMs: number
}

/** A sweep candidate. */
export interface Candidate {
  readonly hash: string
  readonly grantedUntilMs: number
}

/** The statements of the content tables over one client. */
export interface ContentStatements {
  readonly sql: SqlClient.SqlClient
  readonly dialect: ContentDialect
  /** K2: registers the tenant for sweeping and creates the row or raises its horizon (`greatest`). */
  readonly upsertContent: (tenant: string, hash: string, size: number, untilMs: number) => Effect.Effect<Upserted, SqlError>
  readonly writeChunk: (tenant: string, hash: string, chunk: number, bytes: Uint8Array) => Effect.Effect<void, SqlError>
  /** Renames pending chunks to `hash` (new content) or drops them (existing content). */
  readonly settlePending: (tenant: string, pending: string, hash: string, keep: boolean) => Effect.Effect<void, SqlError>
  /** K4: raises the horizon monotonically; the new horizon, or undefined when the row is gone. */
  readonly raise: (tenant: string, hash: string, size: number, untilMs: number) => Effect.Effect<number | undefined, SqlError>
  /** The content row's horizon, if the row exists. */
  readonly horizonOf: (tenant: string, hash: string, size: number) => Effect.Effect<number | undefined, SqlError>
  readonly readChunks: (tenant: string, hash: string) => Effect.Effect<ReadonlyArray<ChunkRow>, SqlError>
  readonly readChunk: (tenant: string, hash: string, chunk: number) => Effect.Effect<Uint8Array | undefined, SqlError>
  readonly insertRef: (attachment: ContentAttachment, hash: string, size: number) => Effect.Effect<void, SqlError>
  readonly deleteRef: (attachment: ContentAttachment) => Effect.Effect<boolean, SqlError>
  /** Every tenant registered for sweeping (a forced pass; records nothing). */
  readonly allTenants: Effect.Effect<ReadonlyArray<string>, SqlError>
  /** Claims up to `limit` tenants last swept at or before `dueBeforeMs`, recording `nowMs` as their sweep. */
  readonly claimTenants: (nowMs: number, dueBeforeMs: number, limit: number) => Effect.Effect<ReadonlyArray<string>, SqlError>
  /** The longest turn budget recorded (T), 0 when none. */
  readonly longestTurnMs: Effect.Effect<number, SqlError>
  /** Candidates of one batch, paged by `(granted_until_ms, hash)` after `after`. */
  readonly candidates: (tenant: string, beforeMs: number, after: Candidate, limit: number) => Effect.Effect<ReadonlyArray<Candidate>, SqlError>
  /** Deletes content rows `hashes` still below `recheckBeforeMs`, returning the hashes deleted (rows only). */
  readonly deleteRows: (tenant: string, hashes: ReadonlyArray<string>, recheckBeforeMs: number) => Effect.Effect<ReadonlyArray<string>, SqlError>
  /** Deletes every chunk of `hashes`. */
  readonly deleteChunks: (tenant: string, hashes: ReadonlyArray<string>) => Effect.Effect<void, SqlError>
  /** Deletes rows and their chunks in one statement (Postgres CTE); the hashes deleted. */
  readonly deleteRowsWithChunks: (tenant: string, hashes: ReadonlyArray<string>, recheckBeforeMs: number) => Effect.Effect<ReadonlyArray<string>, SqlError>
}

const intOf = (row: Record<string, unknown>, column: string) => readInteger(row[column])

/** Builds the statements over `sql` for `dialect`. */
export const makeContentStatements = (sql: SqlClient.SqlClient, dialect: ContentDialect): ContentStatements => {
  const where = (tenant: string, hash: string) =>
    sql`routing_key = ${tenantRoutingKey(tenant)} AND tenant_id = ${tenant} AND hash = ${hash}`
  const postgres = dialect.dialect === "postgres"

  const upsertContent = (tenant: string, hash: string, size: number, untilMs: number) =>
    Effect.gen(function*() {
      const key = tenantRoutingKey(tenant)
      yield* sql`INSERT INTO ${sql(SWEEPS_TABLE)} (routing_key, tenant_id, swept_at_ms) VALUES (${key}, ${tenant}, 0) ON CONFLICT DO NOTHING`
      const before = postgres ? [] : yield* sql`SELECT 1 AS found FROM ${sql(CONTENTS_TABLE)} WHERE ${where(tenant, hash)}`
      const rows = yield* sql<Record<string, unknown>>`
        INSERT INTO ${sql(CONTENTS_TABLE)} (routing_key, tenant_id, hash, size, granted_until_ms)
        VALUES (${key}, ${tenant}, ${hash}, ${size}, ${untilMs})
        ON CONFLICT (routing_key, tenant_id, hash) DO UPDATE
          SET granted_until_ms = ${sql.literal(dialect.greatest(`${CONTENTS_TABLE}.granted_until_ms`, "excluded.granted_until_ms"))}
        RETURNING ${sql.literal(postgres ? "(xmax = 0) AS inserted, " : "")}granted_until_ms`
      const row = rows[0]!
      return { inserted: postgres ? row["inserted"] === true : before.length === 0, grantedUntilMs: intOf(row, "granted_until_ms") }
    })


  return {
    sql,
    dialect,
    upsertContent,
    writeChunk: (tenant, hash, chunk, bytes) =>
      Effect.asVoid(sql`INSERT INTO ${sql(CHUNKS_TABLE)} (routing_key, tenant_id, hash, chunk, bytes)
        VALUES (${tenantRoutingKey(tenant)}, ${tenant}, ${hash}, ${chunk}, ${bytes})`),
    settlePending: (tenant, pending, hash, keep) =>
      Effect.asVoid(keep
        ? sql`UPDATE ${sql(CHUNKS_TABLE)} SET hash = ${hash} WHERE ${where(tenant, pending)}`
        : sql`DELETE FROM ${sql(CHUNKS_TABLE)} WHERE ${where(tenant, pending)}`),
    raise: (tenant, hash, size, untilMs) =>
      Effect.map(
        sql<Record<string, unknown>>`UPDATE ${sql(CONTENTS_TABLE)}
          SET granted_until_ms = CASE WHEN granted_until_ms > ${untilMs} THEN granted_until_ms ELSE ${untilMs} END
          WHERE ${where(tenant, hash)} AND size = ${size} RETURNING granted_until_ms`,
        (rows) => (rows[0] === undefined ? undefined : intOf(rows[0], "granted_until_ms"))
      ),
    horizonOf: (tenant, hash, size) =>
      Effect.map(
        sql<Record<string, unknown>>`SELECT granted_until_ms FROM ${sql(CONTENTS_TABLE)} WHERE ${where(tenant, hash)} AND size = ${size}`,
        (rows) => (rows[0] === undefined ? undefined : intOf(rows[0], "granted_until_ms"))
      ),
    readChunks: (tenant, hash) =>
      Effect.map(
        sql<Record<string, unknown>>`SELECT chunk, bytes FROM ${sql(CHUNKS_TABLE)} WHERE ${where(tenant, hash)} ORDER BY chunk`,
        (rows) => rows.map((row) => ({ chunk: intOf(row, "chunk"), bytes: readBytes(row["bytes"]) }))
      ),
    readChunk: (tenant, hash, chunk) =>
      Effect.map(
        sql<Record<string, unknown>>`SELECT bytes FROM ${sql(CHUNKS_TABLE)} WHERE ${where(tenant, hash)} AND chunk = ${chunk}`,
        (rows) => (rows[0] === undefined ? undefined : readBytes(rows[0]["bytes"]))
      ),
    insertRef: (attachment, hash, size) =>
      Effect.asVoid(sql`INSERT INTO ${sql(REFS_TABLE)} (tenant_id, actor, blob, name, hash, size)
        VALUES (${attachment.tenant}, ${attachment.actor}, ${attachment.blob}, ${attachment.name}, ${hash}, ${size})
        ON CONFLICT (tenant_id, actor, blob, name) DO UPDATE SET hash = excluded.hash, size = excluded.size`),
    deleteRef: (attachment) =>
      Effect.map(
        sql<Record<string, unknown>>`DELETE FROM ${sql(REFS_TABLE)} WHERE tenant_id = ${attachment.tenant}
          AND actor = ${attachment.actor} AND blob = ${attachment.blob} AND name = ${attachment.name} RETURNING hash`,
        (rows) => rows.length > 0
      ),
    allTenants: Effect.map(
      sql<Record<string, unknown>>`SELECT tenant_id FROM ${sql(SWEEPS_TABLE)} ORDER BY tenant_id`,
      (rows) => rows.map((row) => String(row["tenant_id"]))
    ),
    claimTenants: (nowMs, dueBeforeMs, limit) =>
      Effect.map(
        sql<Record<string, unknown>>`UPDATE ${sql(SWEEPS_TABLE)} SET swept_at_ms = ${nowMs}
          WHERE (routing_key, tenant_id) IN (
            SELECT routing_key, tenant_id FROM ${sql(SWEEPS_TABLE)} WHERE swept_at_ms <= ${dueBeforeMs}
            ORDER BY tenant_id LIMIT ${limit} ${sql.literal(dialect.claimLock)})
          RETURNING tenant_id`,
        (rows) => rows.map((row) => String(row["tenant_id"])).sort()
      ),
    longestTurnMs: Effect.map(
      sql<Record<string, unknown>>`SELECT COALESCE(MAX(turn_ms), 0) AS turn_ms FROM ${sql(TYPES_TABLE)}`,
      (rows) => intOf(rows[0]!, "turn_ms")
    ),
    candidates: (tenant, beforeMs, after, limit) =>
      Effect.map(
        sql<Record<string, unknown>>`SELECT hash, granted_until_ms FROM ${sql(CONTENTS_TABLE)}
          WHERE routing_key = ${tenantRoutingKey(tenant)} AND tenant_id = ${tenant} AND granted_until_ms < ${beforeMs}
            AND (granted_until_ms > ${after.grantedUntilMs} OR (granted_until_ms = ${after.grantedUntilMs} AND hash > ${after.hash}))
          ORDER BY granted_until_ms, hash LIMIT ${limit}`,
        (rows) => rows.map((row) => ({ hash: String(row["hash"]), grantedUntilMs: intOf(row, "granted_until_ms") }))
      ),
    deleteRows: (tenant, hashes, recheckBeforeMs) =>
      Effect.map(
        sql<Record<string, unknown>>`DELETE FROM ${sql(CONTENTS_TABLE)}
          WHERE routing_key = ${tenantRoutingKey(tenant)} AND tenant_id = ${tenant}
            AND ${sql.in("hash", hashes)} AND granted_until_ms < ${recheckBeforeMs} RETURNING hash`,
        (rows) => rows.map((row) => String(row["hash"]))
      ),
    deleteChunks: (tenant, hashes) =>
      hashes.length === 0
        ? Effect.void
        : Effect.asVoid(sql`DELETE FROM ${sql(CHUNKS_TABLE)}
          WHERE routing_key = ${tenantRoutingKey(tenant)} AND tenant_id = ${tenant} AND ${sql.in("hash", hashes)}`),
    deleteRowsWithChunks: (tenant, hashes, recheckBeforeMs) =>
      Effect.map(
        sql<Record<string, unknown>>`WITH gone AS (
            DELETE FROM ${sql(CONTENTS_TABLE)}
            WHERE routing_key = ${tenantRoutingKey(tenant)} AND tenant_id = ${tenant}
              AND ${sql.in("hash", hashes)} AND granted_until_ms < ${recheckBeforeMs}
            RETURNING hash),
          chunks AS (
            DELETE FROM ${sql(CHUNKS_TABLE)} c USING gone
            WHERE c.routing_key = ${tenantRoutingKey(tenant)} AND c.tenant_id = ${tenant} AND c.hash = gone.hash)
          SELECT hash FROM gone`,
        (rows) => rows.map((row) => String(row["hash"]))
      )
  }
}
