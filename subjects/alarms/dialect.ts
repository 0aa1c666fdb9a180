/**
 * Every SQL dialect difference of the alarms subject, in one place.
 *
 * The rest of the implementation writes portable SQL through the `effect/sql` template tag
 * (placeholders are compiled per dialect, `INSERT ... ON CONFLICT (...) DO UPDATE` and `RETURNING`
 * work on SQLite >= 3.35 and Postgres alike); only what differs lives here: the epoch-ms column type,
 * the two-argument maximum, the catalog queries the migration (R3) needs, and the lock that
 * serializes scheduler transactions on engines with independent connections.
 * Booleans are stored as INTEGER 0|1 on every dialect, so there is no boolean difference.
 */
import type { Dialect } from "../../adapters/contract.ts"
import { SCHEDULED_TABLE } from "./schema.ts"

/** What differs between dialects for the alarm tables. */
export interface AlarmsDialect {
  readonly dialect: Dialect
  /** Column type of epoch-millisecond integers (`run_at`, `wake_at`, `retry_at`, `repeat_every_ms`). */
  readonly epochMsType: "INTEGER" | "BIGINT"
  /** SQL expression for the larger of two non-null integer expressions. */
  readonly greatest: (left: string, right: string) => string
  /** Query with one parameter (the index name) returning a row when that index exists. */
  readonly indexExistsSql: string
  /** Query with one parameter (the table name) returning one row per column, column `name`. */
  readonly columnNamesSql: string
  /**
   * Statement run first in every scheduler transaction, before the migration (R3), to serialize
   * scheduler transactions across independent connections, as a Durable Object's single thread does
   * (null: the engine already runs one transaction at a time). It needs no table, so it also
   * serializes the transactions that create or migrate the tables. Plain reads outside transactions
   * are not blocked.
   */
  readonly transactionLockSql: string | null
}

const sqlite: AlarmsDialect = {
  dialect: "sqlite",
  epochMsType: "INTEGER",
  greatest: (left, right) => `MAX(${left}, ${right})`,
  indexExistsSql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?",
  columnNamesSql: "SELECT name FROM pragma_table_info(?)",
  transactionLockSql: null
}

const postgres: AlarmsDialect = {
  dialect: "postgres",
  epochMsType: "BIGINT",
  greatest: (left, right) => `GREATEST(${left}, ${right})`,
  indexExistsSql: "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1",
  columnNamesSql:
    "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
  // A transaction-scoped advisory lock keyed by the schema and table: held until commit or rollback,
  // it conflicts only with itself (never with plain SELECTs), and works before the tables exist.
  transactionLockSql: `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.${SCHEDULED_TABLE}'))`
}

/** The dialect description for `dialect`. */
export const alarmsDialect = (dialect: Dialect): AlarmsDialect => (dialect === "sqlite" ? sqlite : postgres)

/**
 * Reads an integer column value: drivers return numbers, bigints (SQLite safe-integer mode) or
 * strings (Postgres BIGINT). Throws on a non-integer, which would mean a corrupted row.
 */
export const readInteger = (value: unknown): number => {
  const n = typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : Number(String(value))
  if (!Number.isSafeInteger(n)) throw new RangeError(`expected a safe integer column value, got ${String(value)}`)
  return n
}

/** Reads a nullable integer column value. */
export const readNullableInteger = (value: unknown): number | null =>
  value === null || value === undefined ? null : readInteger(value)
