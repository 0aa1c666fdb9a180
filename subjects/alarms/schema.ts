/**
 * Tables of the alarms subject and the migration from older layouts (R3), with upstream's exact
 * persisted names (effect-cf 0.52): the layout is part of the contract, so an upgrade reads what
 * upstream wrote.
 *
 * `effect_cf_scheduled_alarms` holds one row per logical alarm (`run_at` is the logical deadline,
 * `wake_at` the materialised effective wake `max(run_at, retry_at ?? run_at)`); `effect_cf_alarm_attempts`
 * holds the attempt state (revision, attempts, parked, retry_at, progress cursor). Two older layouts
 * exist: (a) before attempt tracking (no `wake_at`, no attempts table, an index on `(run_at, storage_id)`)
 * and (b) attempt tracking without `wake_at` (the attempts table may hold backing-off or parked rows).
 * The wake index is the durable migration marker: it is created last. `ensureTables` runs at the start
 * of every storage transaction, so a transaction that fails leaves an older layout untouched.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { AlarmRef } from "./api.ts"
import type { AlarmsDialect } from "./dialect.ts"

/** Table of scheduled alarms (upstream's name). */
export const SCHEDULED_TABLE = "effect_cf_scheduled_alarms"
/** Table of attempt state (upstream's name). */
export const ATTEMPTS_TABLE = "effect_cf_alarm_attempts"
/** Index on `(wake_at, storage_id)`: dispatch order and the migration marker (upstream's name). */
export const WAKE_INDEX = "idx_effect_cf_scheduled_alarms_wake_at_storage_id"
/** Index of the older layouts on `(run_at, storage_id)`, dropped by the migration (upstream's name). */
export const OLD_RUN_AT_INDEX = "idx_effect_cf_scheduled_alarms_run_at_storage_id"

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

/** True when the wake index (the migration marker) exists. */
const wakeIndexExists = (sql: SqlClient.SqlClient, dialect: AlarmsDialect): Effect.Effect<boolean, SqlError> =>
  sql.unsafe<{ readonly name: string }>(dialect.indexExistsSql, [WAKE_INDEX]).pipe(
    Effect.map((rows) => rows.length > 0)
  )

/**
 * Creates the tables if missing and migrates an older layout (R3). Idempotent; atomic when run in a
 * transaction, which is how the scheduler runs it (at the start of every storage transaction), plus
 * outside a transaction at the start of `processDueAlarms` and `getAlarmStatus`, as upstream does.
 * Stops when the wake index exists (the durable migration marker). That check comes first: the marker
 * is created after both tables, so when it exists there is nothing to create, and a migrated database
 * costs one catalog read per transaction.
 */
export const ensureTables = (sql: SqlClient.SqlClient, dialect: AlarmsDialect): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (yield* wakeIndexExists(sql, dialect)) return
    for (const ddl of currentTablesDdl(dialect)) yield* sql.unsafe(ddl)
    const columns = yield* sql.unsafe<{ readonly name: string }>(dialect.columnNamesSql, [SCHEDULED_TABLE])
    if (!columns.some((column) => column.name === "wake_at")) {
      yield* sql.unsafe(
        `ALTER TABLE ${SCHEDULED_TABLE} ADD COLUMN wake_at ${dialect.epochMsType} NOT NULL DEFAULT 0`
      )
    }
    // Backfill every row: backing-off and parked rows of layout (b) wake at their retry_at, rows
    // without an attempts row (layout (a), or never failed) at their run_at.
    yield* sql.unsafe(
      `UPDATE ${SCHEDULED_TABLE} SET wake_at = ${
        dialect.greatest(
          "run_at",
          `COALESCE((SELECT s.retry_at FROM ${ATTEMPTS_TABLE} s WHERE s.storage_id = ${SCHEDULED_TABLE}.storage_id), run_at)`
        )
      }`
    )
    yield* sql.unsafe(`DROP INDEX IF EXISTS ${OLD_RUN_AT_INDEX}`)
    yield* sql.unsafe(`CREATE INDEX IF NOT EXISTS ${WAKE_INDEX} ON ${SCHEDULED_TABLE} (wake_at, storage_id)`)
  })
