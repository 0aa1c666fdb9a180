/**
 * The only places where SQLite and Postgres differ for this scheduler: column types, the two-argument
 * maximum, catalog look-ups, byte-order collation and the transaction lock.
 */
import type { Dialect } from "../../adapters/contract.ts"

/** Upstream's table and index names (seed 000); the persisted layout is part of the contract. */
export const ALARMS_TABLE = "effect_cf_scheduled_alarms"
/** Attempt-tracking table (one row per alarm with a revision). */
export const ATTEMPTS_TABLE = "effect_cf_alarm_attempts"
/** The wake index; its presence is the durable migration marker (R3). */
export const WAKE_INDEX = "idx_effect_cf_scheduled_alarms_wake_at_storage_id"
/** The index of the layout before `wake_at`, dropped by the migration. */
export const OLD_RUN_AT_INDEX = "idx_effect_cf_scheduled_alarms_run_at_storage_id"

/** SQL text that depends on the dialect. */
export interface DialectSql {
  /** Column type for epoch milliseconds and other 64-bit integers. */
  readonly bigint: string
  /** Name of the two-argument scalar maximum. */
  readonly greatest: string
  /** Query returning one row when the wake index exists in the current schema. */
  readonly wakeIndexExists: string
  /** Statements adding `wake_at` when missing; undefined when a catalog check is needed first. */
  readonly addWakeColumnIfMissing: string | undefined
  /** Query listing the columns of the alarms table as `name`. */
  readonly alarmColumns: string
  /** Collation suffix that makes text keys order by UTF-8 bytes. */
  readonly byteOrder: string
  /** Statement serializing scheduler transactions across connections, or undefined. */
  readonly transactionLock: string | undefined
}

const sqlite: DialectSql = {
  bigint: "INTEGER",
  greatest: "MAX",
  wakeIndexExists: `SELECT name FROM sqlite_master WHERE type = 'index' AND name = '${WAKE_INDEX}'`,
  addWakeColumnIfMissing: undefined,
  alarmColumns: `SELECT name FROM pragma_table_info('${ALARMS_TABLE}')`,
  byteOrder: "",
  transactionLock: undefined
}

const postgres: DialectSql = {
  bigint: "BIGINT",
  greatest: "GREATEST",
  wakeIndexExists:
    `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname = '${WAKE_INDEX}'`,
  addWakeColumnIfMissing: `ALTER TABLE ${ALARMS_TABLE} ADD COLUMN IF NOT EXISTS wake_at BIGINT NOT NULL DEFAULT 0`,
  alarmColumns:
    `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${ALARMS_TABLE}'`,
  byteOrder: ` COLLATE "C"`,
  // A Durable Object runs one request at a time; on a shared server a per-schema advisory lock
  // gives the same serial order to scheduler transactions on independent connections.
  transactionLock: `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.${ALARMS_TABLE}'))`
}

/** The SQL fragments of one dialect. */
export const dialectSql = (dialect: Dialect): DialectSql => (dialect === "postgres" ? postgres : sqlite)
