/**
 * The persisted layout, upstream's table and column names (seed 001) without its routing keys:
 * - `tenant_contents(tenant_id, hash, size, granted_until_ms)`: one row per content (K1, K2).
 * - `tenant_content_chunks(tenant_id, hash, chunk, bytes)`: chunks 0..n-1 (K2, K7).
 * - `tenant_content_sweeps(tenant_id, swept_at_ms)`: tenants the sweep visits (K6).
 * - `actor_content_refs(tenant_id, actor, blob, name, hash, size)`: references (K5).
 * - `actor_content_types(actor_type, turn_ms)`: recorded turn budgets; T is their maximum.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { DialectSql } from "./dialect.ts"
import { toNumber } from "./rows.ts"

/** The actor type this store registers its turn budget under. */
export const ACTOR_TYPE = "content"

/** Creates the tables and indexes when missing; safe to run again on restart. */
export const ensureSchema = (sql: SqlClient.SqlClient, d: DialectSql): Effect.Effect<void, SqlError> =>
  Effect.forEach(
    [
      `CREATE TABLE IF NOT EXISTS tenant_contents (
        tenant_id TEXT NOT NULL, hash TEXT NOT NULL, size BIGINT NOT NULL,
        granted_until_ms BIGINT NOT NULL, PRIMARY KEY (tenant_id, hash))`,
      `CREATE INDEX IF NOT EXISTS tenant_contents_by_horizon
        ON tenant_contents (tenant_id, granted_until_ms, hash)`,
      `CREATE TABLE IF NOT EXISTS tenant_content_chunks (
        tenant_id TEXT NOT NULL, hash TEXT NOT NULL, chunk INTEGER NOT NULL,
        bytes ${d.bytesType} NOT NULL, PRIMARY KEY (tenant_id, hash, chunk))`,
      `CREATE TABLE IF NOT EXISTS tenant_content_sweeps (
        tenant_id TEXT NOT NULL PRIMARY KEY, swept_at_ms BIGINT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS actor_content_refs (
        tenant_id TEXT NOT NULL, actor TEXT NOT NULL, blob TEXT NOT NULL, name TEXT NOT NULL,
        hash TEXT NOT NULL, size BIGINT NOT NULL, PRIMARY KEY (tenant_id, actor, blob, name))`,
      `CREATE INDEX IF NOT EXISTS actor_content_refs_by_hash ON actor_content_refs (tenant_id, hash)`,
      `CREATE TABLE IF NOT EXISTS actor_content_types (
        actor_type TEXT NOT NULL PRIMARY KEY, turn_ms BIGINT NOT NULL)`
    ],
    (statement) => sql.unsafe(statement),
    { discard: true }
  )

/** Records this store's turn budget; a recorded budget only grows, so T only grows. */
export const registerTurn = (sql: SqlClient.SqlClient, d: DialectSql, turnMs: number): Effect.Effect<void, SqlError> =>
  sql`INSERT INTO actor_content_types (actor_type, turn_ms) VALUES (${ACTOR_TYPE}, ${turnMs})
    ON CONFLICT (actor_type) DO UPDATE SET turn_ms = ${d.larger("actor_content_types.turn_ms", turnMs)}`.pipe(Effect.asVoid)

/** T: the longest turn recorded by any actor type that declares content (0 when none). */
export const longestTurnMs = (sql: SqlClient.SqlClient): Effect.Effect<number, SqlError> =>
  sql<{ readonly turn_ms: unknown }>`SELECT max(turn_ms) AS turn_ms FROM actor_content_types`.pipe(
    Effect.map(([row]) => (row === undefined || row.turn_ms === null ? 0 : toNumber(row.turn_ms)))
  )
