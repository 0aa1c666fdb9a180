/**
 * Tables of the content subject, with upstream's persisted names (seed 001): the layout is part of the
 * contract, so the harness observes rows by these names and an upstream store binds unchanged.
 *
 * - `tenant_contents`: one row per `(tenant, hash)` with its size and grant horizon `granted_until_ms`;
 * - `tenant_content_chunks`: chunks `0..n-1` of each content (chunk 0 even when empty, K2);
 * - `tenant_content_sweeps`: tenants registered for sweeping and when each was last swept;
 * - `actor_content_refs`: references from actors to content (K5);
 * - `actor_content_types`: the turn budget each actor type declaring content recorded (T is the max).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ContentDialect } from "./dialect.ts"

/** Content rows (upstream's name). */
export const CONTENTS_TABLE = "tenant_contents"
/** Chunk rows (upstream's name). */
export const CHUNKS_TABLE = "tenant_content_chunks"
/** Sweep registrations (upstream's name). */
export const SWEEPS_TABLE = "tenant_content_sweeps"
/** References (upstream's name). */
export const REFS_TABLE = "actor_content_refs"
/** Turn budgets of actor types that declare content (upstream's name). */
export const TYPES_TABLE = "actor_content_types"

/** The routing key of a tenant: FNV-1a (32 bits) of its UTF-16 code units, a stable shard key. */
export const tenantRoutingKey = (tenant: string): number => {
  let hash = 0x811c9dc5
  for (let index = 0; index < tenant.length; index++) {
    hash ^= tenant.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

/** DDL of every table, idempotent. */
export const tablesDdl = (dialect: ContentDialect): ReadonlyArray<string> => [
  `CREATE TABLE IF NOT EXISTS ${CONTENTS_TABLE} (
    routing_key ${dialect.integerType} NOT NULL, tenant_id TEXT NOT NULL, hash TEXT NOT NULL,
    size ${dialect.integerType} NOT NULL, granted_until_ms ${dialect.integerType} NOT NULL,
    PRIMARY KEY (routing_key, tenant_id, hash))`,
  `CREATE TABLE IF NOT EXISTS ${CHUNKS_TABLE} (
    routing_key ${dialect.integerType} NOT NULL, tenant_id TEXT NOT NULL, hash TEXT NOT NULL,
    chunk INTEGER NOT NULL, bytes ${dialect.bytesType} NOT NULL,
    PRIMARY KEY (routing_key, tenant_id, hash, chunk))`,
  `CREATE TABLE IF NOT EXISTS ${SWEEPS_TABLE} (
    routing_key ${dialect.integerType} NOT NULL, tenant_id TEXT NOT NULL, swept_at_ms ${dialect.integerType} NOT NULL,
    PRIMARY KEY (routing_key, tenant_id))`,
  `CREATE TABLE IF NOT EXISTS ${REFS_TABLE} (
    tenant_id TEXT NOT NULL, actor TEXT NOT NULL, blob TEXT NOT NULL, name TEXT NOT NULL,
    hash TEXT NOT NULL, size ${dialect.integerType} NOT NULL,
    PRIMARY KEY (tenant_id, actor, blob, name))`,
  `CREATE TABLE IF NOT EXISTS ${TYPES_TABLE} (actor_type TEXT PRIMARY KEY, turn_ms ${dialect.integerType} NOT NULL)`
]

/**
 * Creates the tables when missing and records `turnMs` for `actorType`; `recordedTurnSql` is the value
 * a second registration sets (the greater of the stored and the new one: T only grows).
 */
export const ensureTables = (
  sql: SqlClient.SqlClient,
  dialect: ContentDialect,
  actorType: string,
  turnMs: number,
  recordedTurnSql: (dialect: ContentDialect, storedColumn: string) => string
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    for (const statement of tablesDdl(dialect)) yield* sql.unsafe(statement)
    yield* sql.unsafe(
      `INSERT INTO ${TYPES_TABLE} (actor_type, turn_ms) VALUES (${dialect.placeholder(1)}, ${dialect.placeholder(2)})
       ON CONFLICT (actor_type) DO UPDATE SET turn_ms = ${recordedTurnSql(dialect, `${TYPES_TABLE}.turn_ms`)}`,
      [actorType, turnMs]
    )
  })
