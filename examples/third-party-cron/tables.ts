/**
 * The persisted layout in upstream's names (`actor_outbox`, `actor_generations`, `actor_receipts`), created
 * when missing, for SQLite and Postgres.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"

const integerType = (dialect: Dialect) => (dialect === "postgres" ? "BIGINT" : "INTEGER")
const booleanType = (dialect: Dialect) => (dialect === "postgres" ? "BOOLEAN" : "INTEGER")

/** `false` as the dialect writes a boolean column. */
export const falseLiteral = (dialect: Dialect): string => (dialect === "postgres" ? "false" : "0")

/** Creates the outbox, generation and receipt tables and the timer-key unique index when missing. */
export const createTables = (sql: SqlClient.SqlClient, dialect: Dialect): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    const int = integerType(dialect)
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS actor_outbox (
      routing_key ${int} NOT NULL,
      intent_id TEXT PRIMARY KEY,
      kind TEXT NOT NULL DEFAULT 'intent',
      bucket INTEGER NOT NULL,
      due_at_ms ${int} NOT NULL,
      scheduled_at_ms ${int} NOT NULL,
      tenant_id TEXT NOT NULL,
      actor_type TEXT NOT NULL,
      actor_id TEXT NOT NULL,
      timer_key TEXT,
      target_type TEXT NOT NULL,
      target_id TEXT NOT NULL,
      command TEXT NOT NULL,
      payload TEXT NOT NULL,
      caller TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT,
      ambiguous ${booleanType(dialect)} NOT NULL DEFAULT ${falseLiteral(dialect)}
    )`)
    yield* sql.unsafe(`CREATE UNIQUE INDEX IF NOT EXISTS actor_outbox_timer_key
      ON actor_outbox (routing_key, tenant_id, actor_type, actor_id, timer_key) WHERE timer_key IS NOT NULL`)
    yield* sql.unsafe(`CREATE INDEX IF NOT EXISTS actor_outbox_due ON actor_outbox (due_at_ms)`)
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS actor_generations (
      routing_key ${int} NOT NULL,
      tenant_id TEXT NOT NULL,
      actor_type TEXT NOT NULL,
      actor_id TEXT NOT NULL,
      generation INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (routing_key, tenant_id, actor_type, actor_id)
    )`)
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS actor_receipts (
      routing_key ${int} NOT NULL,
      tenant_id TEXT NOT NULL,
      actor_type TEXT NOT NULL,
      actor_id TEXT NOT NULL,
      command_id TEXT NOT NULL,
      command TEXT NOT NULL,
      outcome TEXT NOT NULL,
      committed_at_ms ${int} NOT NULL,
      PRIMARY KEY (routing_key, tenant_id, actor_type, actor_id, command_id)
    )`)
  })
