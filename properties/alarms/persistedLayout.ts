/**
 * The persisted layout after migration (R3; the reference page's Storage section: the layout is part
 * of the contract, so upgrades read what upstream wrote): upstream's tables with their columns and
 * storage classes, the wake index present and the old `(run_at, storage_id)` index dropped. Read from
 * the database catalog by the harness, never through an implementation.
 *
 * Storage classes: `integer` (SQLite: a declared type containing INT; Postgres: bigint, integer,
 * smallint) for epoch milliseconds, counts and flags, `text` (SQLite: CHAR, CLOB or TEXT; Postgres:
 * text, character varying) for keys and JSON; anything else is reported as declared.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"
import type { Json } from "../../harness/Property.ts"
import { LEGACY_ATTEMPTS_TABLE, LEGACY_RUN_AT_INDEX, LEGACY_SCHEDULED_TABLE, UPSTREAM_WAKE_INDEX } from "./legacyLayout.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"

/** Upstream's migrated layout (seed 000): column -> storage class, per table, and its indexes. */
export const UPSTREAM_LAYOUT: Json = {
  [LEGACY_SCHEDULED_TABLE]: {
    storage_id: "text",
    alarm_id: "text",
    tag: "text",
    run_at: "integer",
    wake_at: "integer",
    repeat_every_ms: "integer",
    payload: "text"
  },
  [LEGACY_ATTEMPTS_TABLE]: {
    storage_id: "text",
    revision: "text",
    attempts: "integer",
    parked: "integer",
    retry_at: "integer",
    progress: "integer"
  },
  indexes: { [UPSTREAM_WAKE_INDEX]: true, [LEGACY_RUN_AT_INDEX]: false }
}

/** The storage class of a declared column type (see the module comment). */
export const storageClass = (declared: string): string => {
  const type = declared.toUpperCase()
  if (type.includes("INT")) return "integer"
  if (type.includes("CHAR") || type.includes("CLOB") || type.includes("TEXT")) return "text"
  return declared === "" ? "(no declared type)" : declared.toLowerCase()
}

const columnsSql = (dialect: Dialect): string =>
  dialect === "sqlite"
    ? "SELECT name, type FROM pragma_table_info(?)"
    : "SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1"

const indexSql = (dialect: Dialect): string =>
  dialect === "sqlite"
    ? "SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?"
    : "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1"

/**
 * The layout stored now, in the shape of `UPSTREAM_LAYOUT` (columns sorted by name).
 *
 * @example yield* readPersistedLayout(database.sql, "sqlite")
 */
export const readPersistedLayout = (sql: SqlClient.SqlClient, dialect: Dialect): Effect.Effect<Json, SqlError> =>
  Effect.gen(function*() {
    const layout: Record<string, Json> = {}
    for (const table of [LEGACY_SCHEDULED_TABLE, LEGACY_ATTEMPTS_TABLE]) {
      const columns = yield* sql.unsafe<{ readonly name: string; readonly type: string }>(columnsSql(dialect), [table])
      const sorted = [...columns].sort((a, b) => compareCodeUnits(a.name, b.name))
      layout[table] = Object.fromEntries(sorted.map((column) => [column.name, storageClass(String(column.type ?? ""))]))
    }
    const indexes: Record<string, boolean> = {}
    for (const index of [UPSTREAM_WAKE_INDEX, LEGACY_RUN_AT_INDEX]) {
      indexes[index] = (yield* sql.unsafe<{ readonly name: string }>(indexSql(dialect), [index])).length > 0
    }
    layout["indexes"] = indexes
    return layout
  })
