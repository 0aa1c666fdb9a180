/**
 * The persisted layout of the engine's deferreds and clocks (upstream's table and column names, C1).
 * Timestamps are epoch milliseconds in 64-bit integer columns; exits and metadata are JSON text.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"

const deferredsTable = `CREATE TABLE IF NOT EXISTS engine_deferreds (
  flow_name TEXT NOT NULL,
  execution_id TEXT NOT NULL,
  deferred_name TEXT NOT NULL,
  exit TEXT NOT NULL,
  metadata TEXT,
  completed_at_ms BIGINT NOT NULL,
  consumed_at_ms BIGINT,
  PRIMARY KEY (flow_name, execution_id, deferred_name)
)`

const clocksTable = `CREATE TABLE IF NOT EXISTS engine_clocks (
  flow_name TEXT NOT NULL,
  execution_id TEXT NOT NULL,
  clock_name TEXT NOT NULL,
  deferred_name TEXT NOT NULL,
  due_at_ms BIGINT NOT NULL,
  completed_at_ms BIGINT,
  owner TEXT NOT NULL,
  PRIMARY KEY (flow_name, execution_id, clock_name)
)`

/**
 * Creates both tables when they are missing. Safe to run on every start (a restart rebuilds the
 * service on the same database); a concurrent creator on Postgres can make one attempt fail, so a
 * failed attempt is retried a few times before giving up.
 */
export const ensureSchema = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql.unsafe(deferredsTable)
    yield* sql.unsafe(clocksTable)
  }).pipe(Effect.retry({ times: 3 }))
