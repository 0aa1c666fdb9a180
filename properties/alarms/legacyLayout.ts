/**
 * Older persisted layouts of upstream's alarm scheduler (effect-cf, seed 000), written by the harness
 * itself, never through an implementation: the migration property (R3) starts from storage that
 * upstream's earlier releases left, so an implementation is judged on reading what upstream wrote, not
 * on reading its own idea of that layout. Nothing here imports `subjects/`.
 *
 * - (a) `beforeAttempts`: `effect_cf_scheduled_alarms` without `wake_at`, no attempts table, and the
 *   index `idx_effect_cf_scheduled_alarms_run_at_storage_id (run_at, storage_id)`.
 * - (b) `attemptsWithoutWake`: the same table and index, plus `effect_cf_alarm_attempts`, whose rows
 *   may be backing off (`attempts > 0`, `retry_at` set, `parked 0`), parked (`parked 1`) or fresh.
 *
 * Epoch-millisecond columns are `INTEGER` on SQLite and `BIGINT` on Postgres; booleans are 0|1.
 *
 * @example
 * yield* writeLegacyLayout(sql, "sqlite", { kind: "beforeAttempts", rows: [{ tag: "a", id: "1", runAtMs, repeatEveryMs: null, payloadText: "1" }] })
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"
import { storageIdOf } from "../../models/alarms/index.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"

/** Upstream's table of scheduled alarms. */
export const LEGACY_SCHEDULED_TABLE = "effect_cf_scheduled_alarms"
/** Upstream's table of attempt state (layout (b) only). */
export const LEGACY_ATTEMPTS_TABLE = "effect_cf_alarm_attempts"
/** Upstream's index of both older layouts on `(run_at, storage_id)`; the migration drops it. */
export const LEGACY_RUN_AT_INDEX = "idx_effect_cf_scheduled_alarms_run_at_storage_id"
/** Upstream's index on `(wake_at, storage_id)` that a migrated layout has (the migration marker). */
export const UPSTREAM_WAKE_INDEX = "idx_effect_cf_scheduled_alarms_wake_at_storage_id"

/** One row of `effect_cf_scheduled_alarms` in an older layout (absolute epoch ms). */
export interface LegacyScheduledRow {
  readonly tag: string
  readonly id: string
  readonly runAtMs: number
  readonly repeatEveryMs: number | null
  /** Stored JSON text; may be undecodable on purpose. */
  readonly payloadText: string
}

/** One row of `effect_cf_alarm_attempts` in layout (b), keyed by the alarm's tag and id. */
export interface LegacyAttemptsRow {
  readonly tag: string
  readonly id: string
  readonly revision: string
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  /** Progress cursor; -1 when none. */
  readonly progress: number
}

/** An older layout with its rows: generated data, written by `writeLegacyLayout`. */
export type LegacyLayout =
  | { readonly kind: "beforeAttempts"; readonly rows: ReadonlyArray<LegacyScheduledRow> }
  | {
    readonly kind: "attemptsWithoutWake"
    readonly rows: ReadonlyArray<LegacyScheduledRow>
    readonly attempts: ReadonlyArray<LegacyAttemptsRow>
  }

/** Upper bound on rows written for one layout (generators stay far below it). */
export const MAX_LEGACY_ROWS = 1_000

const epochMsType = (dialect: Dialect): "INTEGER" | "BIGINT" => (dialect === "sqlite" ? "INTEGER" : "BIGINT")

/**
 * The DDL of an older layout on `dialect`: the scheduled table without `wake_at` and the run_at
 * index, plus, for layout (b), the attempts table.
 *
 * @example legacyLayoutDdl("postgres", "attemptsWithoutWake").length // 3
 */
export const legacyLayoutDdl = (dialect: Dialect, kind: LegacyLayout["kind"]): ReadonlyArray<string> => {
  const epochMs = epochMsType(dialect)
  const scheduled = [
    `CREATE TABLE ${LEGACY_SCHEDULED_TABLE} (
      storage_id TEXT PRIMARY KEY,
      alarm_id TEXT NOT NULL,
      tag TEXT NOT NULL,
      run_at ${epochMs} NOT NULL,
      repeat_every_ms ${epochMs},
      payload TEXT NOT NULL
    )`,
    `CREATE INDEX ${LEGACY_RUN_AT_INDEX} ON ${LEGACY_SCHEDULED_TABLE} (run_at, storage_id)`
  ]
  if (kind === "beforeAttempts") return scheduled
  return [
    ...scheduled,
    `CREATE TABLE ${LEGACY_ATTEMPTS_TABLE} (
      storage_id TEXT PRIMARY KEY,
      revision TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      parked INTEGER NOT NULL,
      retry_at ${epochMs},
      progress ${epochMs} NOT NULL
    )`
  ]
}

const assertBounded = (layout: LegacyLayout): void => {
  const count = layout.rows.length + (layout.kind === "attemptsWithoutWake" ? layout.attempts.length : 0)
  if (count > MAX_LEGACY_ROWS) throw new RangeError(`a legacy layout holds at most ${MAX_LEGACY_ROWS} rows, got ${count}`)
}

/**
 * Creates an older layout in an empty database and writes its rows, through `sql` as plain
 * statements. It does not touch the platform alarm (see `legacyPlatformAlarmMs`).
 *
 * @example yield* writeLegacyLayout(database.sql, "postgres", layout)
 */
export const writeLegacyLayout = (
  sql: SqlClient.SqlClient,
  dialect: Dialect,
  layout: LegacyLayout
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    assertBounded(layout)
    for (const ddl of legacyLayoutDdl(dialect, layout.kind)) yield* sql.unsafe(ddl)
    const scheduled = sql.literal(LEGACY_SCHEDULED_TABLE)
    for (const row of layout.rows) {
      yield* sql`INSERT INTO ${scheduled} (storage_id, alarm_id, tag, run_at, repeat_every_ms, payload)
        VALUES (${storageIdOf(row)}, ${row.id}, ${row.tag}, ${row.runAtMs}, ${row.repeatEveryMs}, ${row.payloadText})`
    }
    if (layout.kind === "beforeAttempts") return
    const attemptsTable = sql.literal(LEGACY_ATTEMPTS_TABLE)
    for (const state of layout.attempts) {
      yield* sql`INSERT INTO ${attemptsTable} (storage_id, revision, attempts, parked, retry_at, progress)
        VALUES (${storageIdOf(state)}, ${state.revision}, ${state.attempts}, ${state.parked ? 1 : 0}, ${state.retryAtMs}, ${state.progress})`
    }
  })

/**
 * The effective wake of a legacy row: `max(run_at, retry_at ?? run_at)` with its attempts row, if any.
 *
 * @example legacyWakeMs({ runAtMs: 10, ... }, { retryAtMs: 50, ... }) // 50
 */
export const legacyWakeMs = (row: LegacyScheduledRow, attempts: LegacyAttemptsRow | undefined): number =>
  Math.max(row.runAtMs, attempts?.retryAtMs ?? row.runAtMs)

/**
 * The platform alarm a scheduler of that older release left: the smallest effective wake of the
 * layout's rows, or null when it has none.
 *
 * @example legacyPlatformAlarmMs({ kind: "beforeAttempts", rows: [] }) // null
 */
export const legacyPlatformAlarmMs = (layout: LegacyLayout): number | null => {
  const attemptsOf = new Map(
    (layout.kind === "attemptsWithoutWake" ? layout.attempts : []).map((state) => [storageIdOf(state), state])
  )
  let smallestMs: number | null = null
  for (const row of layout.rows) {
    const wakeMs = legacyWakeMs(row, attemptsOf.get(storageIdOf(row)))
    if (smallestMs === null || wakeMs < smallestMs) smallestMs = wakeMs
  }
  return smallestMs
}

const columnNamesSql = (dialect: Dialect): string =>
  dialect === "sqlite"
    ? "SELECT name FROM pragma_table_info(?)"
    : "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1"

/**
 * The stored `wake_at` of every row keyed by storage id, read in upstream's layout once it has been
 * migrated; null while `effect_cf_scheduled_alarms` has no `wake_at` column (not migrated yet).
 *
 * @example yield* readStoredWakes(database.sql, "sqlite") // { "effect-cf-alarm:a:1": 1767225600000 }
 */
export const readStoredWakes = (
  sql: SqlClient.SqlClient,
  dialect: Dialect
): Effect.Effect<Readonly<Record<string, number>> | null, SqlError> =>
  Effect.gen(function*() {
    const columns = yield* sql.unsafe<{ readonly name: string }>(columnNamesSql(dialect), [LEGACY_SCHEDULED_TABLE])
    if (!columns.some((column) => column.name === "wake_at")) return null
    const rows = yield* sql<{ readonly storage_id: string; readonly wake_at: unknown }>`
      SELECT storage_id, wake_at FROM ${sql.literal(LEGACY_SCHEDULED_TABLE)}`
    // Sorted here, by code unit, so the order never depends on a database collation.
    const sorted = [...rows].sort((a, b) => compareCodeUnits(a.storage_id, b.storage_id))
    return Object.fromEntries(sorted.map((row) => [row.storage_id, Number(row.wake_at)]))
  })
