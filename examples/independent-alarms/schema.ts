/**
 * Tables, index and the upgrade of upstream's two older layouts (R3).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { StorageOperationError } from "../../subjects/alarms/api.ts"
import { ALARMS_TABLE, ATTEMPTS_TABLE, OLD_RUN_AT_INDEX, WAKE_INDEX } from "./dialect.ts"
import type { DialectSql } from "./dialect.ts"
import { storage } from "./store.ts"

const createTables = (d: DialectSql): ReadonlyArray<string> => [
  `CREATE TABLE IF NOT EXISTS ${ALARMS_TABLE} (
    storage_id TEXT PRIMARY KEY,
    alarm_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    run_at ${d.bigint} NOT NULL,
    wake_at ${d.bigint} NOT NULL DEFAULT 0,
    repeat_every_ms ${d.bigint},
    payload TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS ${ATTEMPTS_TABLE} (
    storage_id TEXT PRIMARY KEY,
    revision TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    parked INTEGER NOT NULL,
    retry_at ${d.bigint},
    progress ${d.bigint} NOT NULL
  )`
]

/** Adds `wake_at` to a layout that predates it (no-op when present). */
const addWakeColumn = (sql: SqlClient.SqlClient, d: DialectSql) =>
  Effect.gen(function*() {
    if (d.addWakeColumnIfMissing !== undefined) {
      yield* sql.unsafe(d.addWakeColumnIfMissing)
      return
    }
    const columns = yield* sql.unsafe<{ name: string }>(d.alarmColumns)
    if (!columns.some((column) => column.name === "wake_at")) {
      yield* sql.unsafe(`ALTER TABLE ${ALARMS_TABLE} ADD COLUMN wake_at ${d.bigint} NOT NULL DEFAULT 0`)
    }
  })

/**
 * Brings storage to the current layout. The wake index is the marker: when it exists nothing else
 * runs; otherwise tables are created, `wake_at` added and backfilled as `max(run_at, retry_at ?? run_at)`
 * (honouring backing-off and parked rows of the older layout), the old index dropped and the wake
 * index created last. Inside a transaction this is atomic.
 */
export const migrate = (sql: SqlClient.SqlClient, d: DialectSql): Effect.Effect<void, StorageOperationError> =>
  Effect.gen(function*() {
    const marker = yield* sql.unsafe(d.wakeIndexExists)
    if (marker.length > 0) return
    for (const statement of createTables(d)) yield* sql.unsafe(statement)
    yield* addWakeColumn(sql, d)
    yield* sql.unsafe(`UPDATE ${ALARMS_TABLE} SET wake_at = ${d.greatest}(run_at, COALESCE(
      (SELECT s.retry_at FROM ${ATTEMPTS_TABLE} s WHERE s.storage_id = ${ALARMS_TABLE}.storage_id), run_at))`)
    yield* sql.unsafe(`DROP INDEX IF EXISTS ${OLD_RUN_AT_INDEX}`)
    yield* sql.unsafe(`CREATE INDEX IF NOT EXISTS ${WAKE_INDEX} ON ${ALARMS_TABLE} (wake_at, storage_id)`)
  }).pipe(storage("alarm.migrate"))
