/**
 * Attempts rows without their scheduled row (R19: cancel deletes both rows; R23: a one-shot
 * acknowledgement deletes the row and its attempts row). Every API read joins from the scheduled row,
 * so an orphan is invisible through the API; the harness reads the tables themselves.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"
import { LEGACY_ATTEMPTS_TABLE, LEGACY_SCHEDULED_TABLE } from "./legacyLayout.ts"

const tableExistsSql = (dialect: Dialect): string =>
  dialect === "sqlite"
    ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?"
    : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1"

/**
 * Storage ids of attempts rows whose scheduled row is gone, in code-unit order (none while the tables
 * do not exist yet).
 *
 * @example yield* readOrphanAttempts(database.sql, "sqlite") // []
 */
export const readOrphanAttempts = (sql: SqlClient.SqlClient, dialect: Dialect): Effect.Effect<ReadonlyArray<string>, SqlError> =>
  Effect.gen(function*() {
    for (const table of [LEGACY_SCHEDULED_TABLE, LEGACY_ATTEMPTS_TABLE]) {
      if ((yield* sql.unsafe<{ readonly name: string }>(tableExistsSql(dialect), [table])).length === 0) return []
    }
    const rows = yield* sql<{ readonly storage_id: string }>`SELECT a.storage_id FROM ${sql.literal(LEGACY_ATTEMPTS_TABLE)} a
      WHERE NOT EXISTS (SELECT 1 FROM ${sql.literal(LEGACY_SCHEDULED_TABLE)} s WHERE s.storage_id = a.storage_id)`
    return rows.map((row) => row.storage_id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  })
