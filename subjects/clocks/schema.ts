/**
 * Tables of the clocks subject, with the engine's persisted names (the layout is part of the
 * contract: the harness reads these rows, and an upstream engine binds with its own tables).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ClocksDialect } from "./dialect.ts"

/** Completed deferreds, one row per address (C1, C5, C7). */
export const DEFERREDS_TABLE = "engine_deferreds"
/** Durable clocks, one row per address (C1, C8). */
export const CLOCKS_TABLE = "engine_clocks"

/** DDL of the subject's tables. */
export const clocksTablesDdl = (dialect: ClocksDialect): ReadonlyArray<string> => [
  `CREATE TABLE IF NOT EXISTS ${DEFERREDS_TABLE} (
    flow_name TEXT NOT NULL,
    execution_id TEXT NOT NULL,
    deferred_name TEXT NOT NULL,
    exit TEXT NOT NULL,
    metadata TEXT,
    completed_at_ms ${dialect.epochMsType} NOT NULL,
    consumed_at_ms ${dialect.epochMsType},
    PRIMARY KEY (flow_name, execution_id, deferred_name)
  )`,
  `CREATE TABLE IF NOT EXISTS ${CLOCKS_TABLE} (
    flow_name TEXT NOT NULL,
    execution_id TEXT NOT NULL,
    clock_name TEXT NOT NULL,
    deferred_name TEXT NOT NULL,
    due_at_ms ${dialect.epochMsType} NOT NULL,
    completed_at_ms ${dialect.epochMsType},
    owner TEXT NOT NULL,
    PRIMARY KEY (flow_name, execution_id, clock_name)
  )`
]

/** Creates the tables when missing (idempotent). */
export const ensureClocksTables = (sql: SqlClient.SqlClient, dialect: ClocksDialect): Effect.Effect<void, SqlError> =>
  Effect.forEach(clocksTablesDdl(dialect), (ddl) => sql.unsafe(ddl), { discard: true })
