/**
 * Tables of the alarms subject and the migration from the older schema (R3).
 *
 * `scheduled_alarms` holds one row per logical alarm (`run_at` is the logical deadline, `wake_at` the
 * materialised effective wake `max(run_at, retry_at ?? run_at)`); `alarm_attempts` holds the attempt
 * state (revision, attempts, parked, retry_at, progress cursor). The older schema (before attempt
 * tracking) had no `wake_at`, no attempts table and an index on `(run_at, storage_id)`; its rows must
 * keep firing after the upgrade. The wake index is the durable migration marker: it is created last.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { hookPoint } from "../../harness/HookPoints.ts"
import type { AlarmRef } from "./api.ts"
import type { AlarmsDialect } from "./dialect.ts"

/** Table of scheduled alarms. */
export const SCHEDULED_TABLE = "scheduled_alarms"
/** Table of attempt state. */
export const ATTEMPTS_TABLE = "alarm_attempts"
/** Index on `(wake_at, storage_id)`: dispatch order and the migration marker. */
export const WAKE_INDEX = "idx_scheduled_alarms_wake_at_storage_id"
/** Index of the older schema on `(run_at, storage_id)`, dropped by the migration. */
export const OLD_RUN_AT_INDEX = "idx_scheduled_alarms_run_at_storage_id"

/** The storage key of an alarm: `"effect-cf-alarm:" + encodeURIComponent(tag) + ":" + encodeURIComponent(id)`. */
export const storageIdOf = (ref: AlarmRef): string =>
  `effect-cf-alarm:${encodeURIComponent(ref.tag)}:${encodeURIComponent(ref.id)}`

/** DDL of the current tables (without the wake index, which the migration creates last). */
export const currentTablesDdl = (dialect: AlarmsDialect): ReadonlyArray<string> => [
  `CREATE TABLE IF NOT EXISTS ${SCHEDULED_TABLE} (
    storage_id TEXT PRIMARY KEY,
    alarm_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    run_at ${dialect.epochMsType} NOT NULL,
    wake_at ${dialect.epochMsType} NOT NULL DEFAULT 0,
    repeat_every_ms ${dialect.epochMsType},
    payload TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS ${ATTEMPTS_TABLE} (
    storage_id TEXT PRIMARY KEY,
    revision TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    parked INTEGER NOT NULL,
    retry_at ${dialect.epochMsType},
    progress ${dialect.epochMsType} NOT NULL
  )`
]

/**
 * DDL of the older schema (before attempt tracking): no `wake_at`, no attempts table, a run_at index.
 * Tests create it, insert rows with `insertOldRowSql`, then build a scheduler to migrate.
 */
export const oldSchemaDdl = (dialect: AlarmsDialect): ReadonlyArray<string> => [
  `CREATE TABLE IF NOT EXISTS ${SCHEDULED_TABLE} (
    storage_id TEXT PRIMARY KEY,
    alarm_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    run_at ${dialect.epochMsType} NOT NULL,
    repeat_every_ms ${dialect.epochMsType},
    payload TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS ${OLD_RUN_AT_INDEX} ON ${SCHEDULED_TABLE} (run_at, storage_id)`
]

/** Inserts one row in the older schema (no wake_at). */
export const insertOldRow = (
  sql: SqlClient.SqlClient,
  row: {
    readonly ref: AlarmRef
    readonly runAtMs: number
    readonly repeatEveryMs: number | null
    readonly payloadJson: string
  }
): Effect.Effect<void, SqlError> =>
  sql`INSERT INTO ${sql.literal(SCHEDULED_TABLE)} (storage_id, alarm_id, tag, run_at, repeat_every_ms, payload)
      VALUES (${storageIdOf(row.ref)}, ${row.ref.id}, ${row.ref.tag}, ${row.runAtMs}, ${row.repeatEveryMs}, ${row.payloadJson})`
    .pipe(Effect.asVoid)

/**
 * Creates the tables if missing and migrates the older schema (R3). Idempotent; atomic when run in a
 * transaction. Stops early when the wake index exists (the durable migration marker).
 */
export const ensureTables = (sql: SqlClient.SqlClient, dialect: AlarmsDialect): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    for (const ddl of currentTablesDdl(dialect)) yield* sql.unsafe(ddl)
    const index = yield* sql.unsafe<{ readonly name: string }>(dialect.indexExistsSql, [WAKE_INDEX])
    if (index.length > 0) return
    const columns = yield* sql.unsafe<{ readonly name: string }>(dialect.columnNamesSql, [SCHEDULED_TABLE])
    if (!columns.some((column) => column.name === "wake_at")) {
      yield* sql.unsafe(
        `ALTER TABLE ${SCHEDULED_TABLE} ADD COLUMN wake_at ${dialect.epochMsType} NOT NULL DEFAULT 0`
      )
    }
    yield* hookPoint("alarms.migration.beforeBackfill")
    // Backfill every row, including rows from before attempt tracking existed (no attempts row).
    yield* sql.unsafe(
      `UPDATE ${SCHEDULED_TABLE} SET wake_at = ${
        dialect.greatest(
          "run_at",
          `COALESCE((SELECT s.retry_at FROM ${ATTEMPTS_TABLE} s WHERE s.storage_id = ${SCHEDULED_TABLE}.storage_id), run_at)`
        )
      }`
    )
    yield* sql.unsafe(`DROP INDEX IF EXISTS ${OLD_RUN_AT_INDEX}`)
    yield* hookPoint("alarms.migration.beforeMarker")
    yield* sql.unsafe(`CREATE INDEX IF NOT EXISTS ${WAKE_INDEX} ON ${SCHEDULED_TABLE} (wake_at, storage_id)`)
  })
