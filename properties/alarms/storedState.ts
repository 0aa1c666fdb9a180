/**
 * What storage holds after a step, read by the harness in one round trip in upstream's persisted
 * layout (part of the contract): both tables in one full outer join (and, only while a table is
 * missing, which of the two exist). From it come
 * - every alarm's stored status, as R28 makes it of the rows: `{attempts, parked, runAtMs, retryAtMs}`,
 *   a missing attempts row read as attempts 0, not parked, no `retry_at` (the layout's default);
 * - every alarm's stored content: its payload (as the JSON value its text holds) and repeat, which the
 *   status does not show (R16 keeps both on a min-merge, R17 replaces them, R23 keeps them on a repeat's
 *   acknowledgement);
 * - the attempts rows without their scheduled row (R19: cancel deletes both rows; R23: a one-shot
 *   acknowledgement deletes the row and its attempts row). Every API read joins from the scheduled
 *   row, so an orphan is invisible through the API.
 * So the harness compares every alarm after every step without calling `getAlarmStatus` once per
 * alarm; the API itself is asked about the alarms a step can have changed (`execute.ts`).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"
import type { Json } from "../../harness/Property.ts"
import { storageIdOf } from "../../models/alarms/index.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { refKey } from "./commands.ts"
import { LEGACY_ATTEMPTS_TABLE, LEGACY_SCHEDULED_TABLE } from "./legacyLayout.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"

/** What the harness read from the alarm tables. */
export interface StoredAlarms {
  /** Every alarm of the id space keyed `tag:id`: its status as R28 derives it, or null without a row. */
  readonly statuses: Record<string, Json>
  /** Every alarm of the id space keyed `tag:id`: `{payload, repeatEveryMs}` of its scheduled row, or null without one. */
  readonly contents: Record<string, Json>
  /** Storage ids of attempts rows whose scheduled row is gone, in code-unit order. */
  readonly orphanAttempts: ReadonlyArray<string>
}

/** One row of the full outer join: a side's columns are null when that side has no row. */
interface JoinedRow {
  readonly scheduled_id: string | null
  readonly attempts_id: string | null
  readonly run_at: unknown
  readonly attempts: unknown
  readonly parked: unknown
  readonly retry_at: unknown
  readonly repeat_every_ms: unknown
  readonly payload: unknown
}

const tablesSql = (dialect: Dialect): string =>
  dialect === "sqlite"
    ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)"
    : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ($1, $2)"

const JOINED_SQL = `SELECT s.storage_id AS scheduled_id, a.storage_id AS attempts_id, s.run_at, a.attempts, a.parked, a.retry_at,
  s.repeat_every_ms, s.payload
  FROM ${LEGACY_SCHEDULED_TABLE} s FULL OUTER JOIN ${LEGACY_ATTEMPTS_TABLE} a ON a.storage_id = s.storage_id`

/** Before attempt tracking (older layout (a)) there is no attempts table. */
const SCHEDULED_ONLY_SQL =
  `SELECT storage_id AS scheduled_id, NULL AS attempts_id, run_at, NULL AS attempts, NULL AS parked, NULL AS retry_at, repeat_every_ms, payload
  FROM ${LEGACY_SCHEDULED_TABLE}`

/** A stored integer as a number; anything else is kept as text, so the check shows it. */
const integerOf = (value: unknown): Json => {
  const number = typeof value === "bigint" ? Number(value) : typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value
  return typeof number === "number" && Number.isSafeInteger(number) ? number : String(value)
}

/** R28 over one joined row with a scheduled row. */
const statusOfRow = (row: JoinedRow): Json =>
  row.attempts_id === null
    ? { attempts: 0, parked: false, runAtMs: integerOf(row.run_at), retryAtMs: null }
    : {
      attempts: integerOf(row.attempts),
      parked: integerOf(row.parked) === 1,
      runAtMs: integerOf(row.run_at),
      retryAtMs: row.retry_at === null || row.retry_at === undefined ? null : integerOf(row.retry_at)
    }

/** The JSON value a stored payload text holds; text that is not JSON is kept as `{unparsed: text}`, so the check shows it. */
export const payloadOf = (text: unknown): Json => {
  try {
    return JSON.parse(String(text)) as Json
  } catch {
    return { unparsed: String(text) }
  }
}

/** The content of one scheduled row: its payload and repeat (layout (a) and later alike). */
const contentOfRow = (row: JoinedRow): Json => ({
  payload: payloadOf(row.payload),
  repeatEveryMs: row.repeat_every_ms === null || row.repeat_every_ms === undefined ? null : integerOf(row.repeat_every_ms)
})

const byCodeUnit = compareCodeUnits

/** The rows of whichever alarm tables exist (none while the scheduled table does not exist yet). */
const rowsOfExistingTables = (sql: SqlClient.SqlClient, dialect: Dialect): Effect.Effect<ReadonlyArray<JoinedRow>, SqlError> =>
  Effect.gen(function*() {
    const tables = new Set((yield* sql.unsafe<{ readonly name: string }>(tablesSql(dialect), [LEGACY_SCHEDULED_TABLE, LEGACY_ATTEMPTS_TABLE])).map((row) => row.name))
    if (!tables.has(LEGACY_SCHEDULED_TABLE)) return []
    return yield* sql.unsafe<JoinedRow>(tables.has(LEGACY_ATTEMPTS_TABLE) ? JOINED_SQL : SCHEDULED_ONLY_SQL)
  })

/**
 * Reads both alarm tables (nothing while the scheduled table does not exist yet).
 *
 * @example yield* readStoredAlarms(database.sql, "sqlite") // { statuses: { "a:1": { attempts: 0, parked: false, runAtMs: 1767225600000, retryAtMs: null }, "a:2": null, ... }, orphanAttempts: [] }
 */
export const readStoredAlarms = (sql: SqlClient.SqlClient, dialect: Dialect): Effect.Effect<StoredAlarms, SqlError> =>
  Effect.gen(function*() {
    // Both tables exist after the first migration, so the join is tried first; only when it fails
    // (a table is missing: before the migration, or an older layout) does the harness ask which exist.
    const rows = yield* sql.unsafe<JoinedRow>(JOINED_SQL).pipe(Effect.catch(() => rowsOfExistingTables(sql, dialect)))
    const scheduled = new Map(rows.flatMap((row) => (row.scheduled_id === null ? [] : [[row.scheduled_id, row] as const])))
    return {
      statuses: Object.fromEntries(VALID_REFS.map((ref) => {
        const row = scheduled.get(storageIdOf(ref))
        return [refKey(ref), row === undefined ? null : statusOfRow(row)]
      })),
      contents: Object.fromEntries(VALID_REFS.map((ref) => {
        const row = scheduled.get(storageIdOf(ref))
        return [refKey(ref), row === undefined ? null : contentOfRow(row)]
      })),
      orphanAttempts: rows.flatMap((row) => (row.scheduled_id === null && row.attempts_id !== null ? [row.attempts_id] : [])).sort(byCodeUnit)
    }
  })
