/**
 * The stored row shape and the portable statements over upstream's two tables.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { StorageOperationError } from "../../subjects/alarms/api.ts"
import { ALARMS_TABLE, ATTEMPTS_TABLE } from "./dialect.ts"
import type { DialectSql } from "./dialect.ts"

/** One logical alarm joined with its attempts row (a missing attempts row reads as fresh). */
export interface StoredAlarm {
  readonly storageId: string
  readonly alarmId: string
  readonly tag: string
  readonly runAt: number
  readonly wakeAt: number
  readonly repeatEveryMs: number | null
  readonly payload: string
  readonly revision: string
  readonly attempts: number
  readonly parked: boolean
  readonly retryAt: number | null
  readonly progress: number
}

/** The attempt state written with every schedule, failure or repeat acknowledgement. */
export interface AttemptState {
  readonly attempts: number
  readonly parked: boolean
  readonly retryAt: number | null
  readonly progress: number
}

/** Maps a statement failure to `StorageOperationError` named after the operation. */
export const storage = (operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (cause) => new StorageOperationError({ operation, cause }))

const num = (value: unknown): number => Number(value)
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const toStored = (row: Record<string, unknown>): StoredAlarm => ({
  storageId: String(row.storage_id),
  alarmId: String(row.alarm_id),
  tag: String(row.tag),
  runAt: num(row.run_at),
  wakeAt: num(row.wake_at),
  repeatEveryMs: numOrNull(row.repeat_every_ms),
  payload: String(row.payload),
  revision: String(row.revision),
  attempts: num(row.attempts),
  parked: num(row.parked) === 1,
  retryAt: numOrNull(row.retry_at),
  progress: num(row.progress)
})

const joined = `SELECT a.storage_id, a.alarm_id, a.tag, a.run_at, a.wake_at, a.repeat_every_ms, a.payload,
  COALESCE(s.revision, '') AS revision, COALESCE(s.attempts, 0) AS attempts,
  COALESCE(s.parked, 0) AS parked, s.retry_at AS retry_at, COALESCE(s.progress, -1) AS progress
  FROM ${ALARMS_TABLE} a LEFT JOIN ${ATTEMPTS_TABLE} s ON s.storage_id = a.storage_id`

/** Statements bound to one client and dialect. */
export interface Store {
  readonly read: (storageId: string) => Effect.Effect<StoredAlarm | undefined, StorageOperationError>
  readonly due: (nowMs: number, limit: number) => Effect.Effect<ReadonlyArray<StoredAlarm>, StorageOperationError>
  readonly nextWake: Effect.Effect<number | undefined, StorageOperationError>
  readonly putAlarm: (row: Omit<StoredAlarm, keyof AttemptState | "revision">) => Effect.Effect<void, StorageOperationError>
  readonly putAttempts: (storageId: string, revision: string, state: AttemptState, wakeAt: number) => Effect.Effect<void, StorageOperationError>
  readonly setRunAt: (storageId: string, runAtMs: number) => Effect.Effect<void, StorageOperationError>
  readonly remove: (storageId: string) => Effect.Effect<void, StorageOperationError>
}

/** Builds the statements of the scheduler over `sql`. */
export const makeStore = (sql: SqlClient.SqlClient, dialect: DialectSql): Store => ({
  read: (storageId) =>
    sql<Record<string, unknown>>`${sql.literal(joined)} WHERE a.storage_id = ${storageId}`
      .pipe(Effect.map((rows) => (rows[0] === undefined ? undefined : toStored(rows[0]))), storage("alarm.read")),
  due: (nowMs, limit) =>
    sql<Record<string, unknown>>`${sql.literal(joined)} WHERE a.wake_at <= ${nowMs}
      ORDER BY a.wake_at, a.storage_id${sql.literal(dialect.byteOrder)} LIMIT ${limit}`
      .pipe(Effect.map((rows) => rows.map(toStored)), storage("alarm.selectDue")),
  nextWake: sql<{ wake_at: unknown }>`SELECT wake_at FROM ${sql.literal(ALARMS_TABLE)}
      ORDER BY wake_at, storage_id${sql.literal(dialect.byteOrder)} LIMIT 1`
    .pipe(Effect.map((rows) => (rows[0] === undefined ? undefined : num(rows[0].wake_at))), storage("alarm.nextWake")),
  putAlarm: (row) =>
    sql`INSERT INTO ${sql.literal(ALARMS_TABLE)} (storage_id, alarm_id, tag, run_at, wake_at, repeat_every_ms, payload)
      VALUES (${row.storageId}, ${row.alarmId}, ${row.tag}, ${row.runAt}, ${row.wakeAt}, ${row.repeatEveryMs}, ${row.payload})
      ON CONFLICT (storage_id) DO UPDATE SET alarm_id = excluded.alarm_id, tag = excluded.tag, run_at = excluded.run_at,
        wake_at = excluded.wake_at, repeat_every_ms = excluded.repeat_every_ms, payload = excluded.payload`
      .pipe(Effect.asVoid, storage("alarm.replace")),
  putAttempts: (storageId, revision, state, wakeAt) =>
    Effect.andThen(
      sql`INSERT INTO ${sql.literal(ATTEMPTS_TABLE)} (storage_id, revision, attempts, parked, retry_at, progress)
        VALUES (${storageId}, ${revision}, ${state.attempts}, ${state.parked ? 1 : 0}, ${state.retryAt}, ${state.progress})
        ON CONFLICT (storage_id) DO UPDATE SET revision = excluded.revision, attempts = excluded.attempts,
          parked = excluded.parked, retry_at = excluded.retry_at, progress = excluded.progress`,
      sql`UPDATE ${sql.literal(ALARMS_TABLE)} SET wake_at = ${wakeAt} WHERE storage_id = ${storageId}`
    ).pipe(Effect.asVoid, storage("alarm.writeAttempts")),
  setRunAt: (storageId, runAtMs) =>
    sql`UPDATE ${sql.literal(ALARMS_TABLE)} SET run_at = ${runAtMs} WHERE storage_id = ${storageId}`
      .pipe(Effect.asVoid, storage("alarm.advanceRepeat")),
  remove: (storageId) =>
    Effect.andThen(
      sql`DELETE FROM ${sql.literal(ALARMS_TABLE)} WHERE storage_id = ${storageId}`,
      sql`DELETE FROM ${sql.literal(ATTEMPTS_TABLE)} WHERE storage_id = ${storageId}`
    ).pipe(Effect.asVoid, storage("alarm.delete"))
})
