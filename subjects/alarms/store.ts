/**
 * The SQL statements of the alarms subject over one `SqlClient`, in portable SQL.
 *
 * Each statement runs in whatever transaction the calling fiber is in (effect/sql carries the
 * transaction connection in the fiber context). Integers are epoch milliseconds; a missing attempts
 * row reads as revision '', attempts 0, not parked, retry_at null, progress -1.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { readInteger, readNullableInteger } from "./dialect.ts"
import type { AlarmsDialect } from "./dialect.ts"
import { ATTEMPTS_TABLE, SCHEDULED_TABLE } from "./schema.ts"

/** One stored alarm joined with its attempt state. */
export interface StoredAlarm {
  readonly storageId: string
  readonly alarmId: string
  readonly tag: string
  readonly runAtMs: number
  readonly wakeAtMs: number
  readonly repeatEveryMs: number | null
  /** Stored JSON text of the payload. */
  readonly payloadJson: string
  /** '' when no attempts row exists (older rows). */
  readonly revision: string
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  /** Progress cursor; -1 when none. */
  readonly progress: number
}

/** The attempt state written with every schedule, failure reschedule and repeat acknowledgement. */
export interface AttemptState {
  readonly storageId: string
  readonly revision: string
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  readonly progress: number
}

/** The content of a scheduled row. */
export interface ScheduledRowContent {
  readonly storageId: string
  readonly alarmId: string
  readonly tag: string
  readonly runAtMs: number
  readonly repeatEveryMs: number | null
  readonly payloadJson: string
}

/** SELECT list and FROM clause reading alarms joined with attempt state (append WHERE / ORDER BY). */
export const ALARM_ROWS_SELECT = `SELECT a.storage_id, a.alarm_id, a.tag, a.run_at, a.wake_at, a.repeat_every_ms, a.payload,
    COALESCE(s.revision, '') AS revision, COALESCE(s.attempts, 0) AS attempts,
    COALESCE(s.parked, 0) AS parked, s.retry_at, COALESCE(s.progress, -1) AS progress
  FROM ${SCHEDULED_TABLE} a LEFT JOIN ${ATTEMPTS_TABLE} s ON s.storage_id = a.storage_id`

/** Decodes one row of `ALARM_ROWS_SELECT`. */
export const decodeStoredAlarm = (row: Record<string, unknown>): StoredAlarm => ({
  storageId: String(row["storage_id"]),
  alarmId: String(row["alarm_id"]),
  tag: String(row["tag"]),
  runAtMs: readInteger(row["run_at"]),
  wakeAtMs: readInteger(row["wake_at"]),
  repeatEveryMs: readNullableInteger(row["repeat_every_ms"]),
  payloadJson: String(row["payload"]),
  revision: String(row["revision"]),
  attempts: readInteger(row["attempts"]),
  parked: readInteger(row["parked"]) === 1,
  retryAtMs: readNullableInteger(row["retry_at"]),
  progress: readInteger(row["progress"])
})

/** The statements of the alarm tables over one client. */
export interface AlarmStore {
  readonly sql: SqlClient.SqlClient
  readonly dialect: AlarmsDialect
  readonly readRow: (storageId: string) => Effect.Effect<StoredAlarm | undefined, SqlError>
  /** Inserts or replaces the scheduled row's content (its `wake_at` is set separately). */
  readonly replaceRow: (content: ScheduledRowContent) => Effect.Effect<void, SqlError>
  readonly writeAttempts: (state: AttemptState) => Effect.Effect<void, SqlError>
  readonly setWakeAt: (storageId: string, wakeAtMs: number) => Effect.Effect<void, SqlError>
  readonly setRunAt: (storageId: string, runAtMs: number) => Effect.Effect<void, SqlError>
  readonly deleteRow: (storageId: string) => Effect.Effect<void, SqlError>
  readonly deleteAttempts: (storageId: string) => Effect.Effect<void, SqlError>
  /** Deletes the scheduled row when its revision is still `revision`; true when a row was deleted. */
  readonly deleteRowIfRevision: (storageId: string, revision: string) => Effect.Effect<boolean, SqlError>
  /** Moves `run_at` when the revision is still `revision`; true when a row was updated. */
  readonly setRunAtIfRevision: (
    storageId: string,
    revision: string,
    runAtMs: number
  ) => Effect.Effect<boolean, SqlError>
}

/** Builds the statements over `sql`. */
export const makeAlarmStore = (sql: SqlClient.SqlClient, dialect: AlarmsDialect): AlarmStore => {
  const select = sql.literal(ALARM_ROWS_SELECT)
  const scheduled = sql.literal(SCHEDULED_TABLE)
  const attemptsTable = sql.literal(ATTEMPTS_TABLE)
  const sameRevision = (storageId: string, revision: string) =>
    sql`storage_id = ${storageId} AND COALESCE((SELECT s.revision FROM ${attemptsTable} s WHERE s.storage_id = ${storageId}), '') = ${revision}`
  return {
    sql,
    dialect,
    readRow: (storageId) =>
      sql<Record<string, unknown>>`${select} WHERE a.storage_id = ${storageId}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : decodeStoredAlarm(rows[0])))
      ),
    replaceRow: (c) =>
      sql`INSERT INTO ${scheduled} (storage_id, alarm_id, tag, run_at, wake_at, repeat_every_ms, payload)
          VALUES (${c.storageId}, ${c.alarmId}, ${c.tag}, ${c.runAtMs}, ${c.runAtMs}, ${c.repeatEveryMs}, ${c.payloadJson})
          ON CONFLICT (storage_id) DO UPDATE SET alarm_id = excluded.alarm_id, tag = excluded.tag,
            run_at = excluded.run_at, repeat_every_ms = excluded.repeat_every_ms, payload = excluded.payload`
        .pipe(Effect.asVoid),
    writeAttempts: (s) =>
      sql`INSERT INTO ${attemptsTable} (storage_id, revision, attempts, parked, retry_at, progress)
          VALUES (${s.storageId}, ${s.revision}, ${s.attempts}, ${s.parked ? 1 : 0}, ${s.retryAtMs}, ${s.progress})
          ON CONFLICT (storage_id) DO UPDATE SET revision = excluded.revision, attempts = excluded.attempts,
            parked = excluded.parked, retry_at = excluded.retry_at, progress = excluded.progress`
        .pipe(Effect.asVoid),
    setWakeAt: (storageId, wakeAtMs) =>
      sql`UPDATE ${scheduled} SET wake_at = ${wakeAtMs} WHERE storage_id = ${storageId}`.pipe(Effect.asVoid),
    setRunAt: (storageId, runAtMs) =>
      sql`UPDATE ${scheduled} SET run_at = ${runAtMs} WHERE storage_id = ${storageId}`.pipe(Effect.asVoid),
    deleteRow: (storageId) => sql`DELETE FROM ${scheduled} WHERE storage_id = ${storageId}`.pipe(Effect.asVoid),
    deleteAttempts: (storageId) =>
      sql`DELETE FROM ${attemptsTable} WHERE storage_id = ${storageId}`.pipe(Effect.asVoid),
    deleteRowIfRevision: (storageId, revision) =>
      sql`DELETE FROM ${scheduled} WHERE ${sameRevision(storageId, revision)} RETURNING storage_id`.pipe(
        Effect.map((rows) => rows.length > 0)
      ),
    setRunAtIfRevision: (storageId, revision, runAtMs) =>
      sql`UPDATE ${scheduled} SET run_at = ${runAtMs} WHERE ${sameRevision(storageId, revision)} RETURNING storage_id`
        .pipe(Effect.map((rows) => rows.length > 0))
  }
}
