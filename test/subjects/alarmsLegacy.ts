/**
 * Test support for the migration of upstream's two older layouts (R3): example layouts written by the
 * harness (`properties/alarms/legacyLayout.ts`), the shape of the tables as the catalog reports it,
 * and a timeline that checks the migrated rows keep firing at the right time. Used on sqlite, pglite,
 * postgres (test/subjects/alarms-migration.test.ts). Not a test file itself.
 */
import { DateTime, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"
import {
  LEGACY_ATTEMPTS_TABLE,
  LEGACY_RUN_AT_INDEX,
  LEGACY_SCHEDULED_TABLE,
  type LegacyLayout,
  UPSTREAM_WAKE_INDEX
} from "../../properties/alarms/legacyLayout.ts"
import type { AlarmScheduler } from "../../subjects/alarms/api.ts"
import { alarmsDialect } from "../../subjects/alarms/dialect.ts"

const job = (id: string) => ({ tag: "job", id })

/**
 * Layout (a), before attempt tracking, at virtual start `t0Ms`: a due one-shot, a due repeat, an
 * undecodable payload and a future row.
 */
export const beforeAttemptsLayout = (t0Ms: number): LegacyLayout => ({
  kind: "beforeAttempts",
  rows: [
    { ...job("once"), runAtMs: t0Ms, repeatEveryMs: null, payloadText: "{\"k\":1}" },
    { ...job("repeat"), runAtMs: t0Ms + 500, repeatEveryMs: 60_000, payloadText: "[1,2]" },
    { ...job("broken"), runAtMs: t0Ms + 800, repeatEveryMs: null, payloadText: "{not json" },
    { ...job("future"), runAtMs: t0Ms + 10_000, repeatEveryMs: null, payloadText: "null" }
  ]
})

/**
 * Layout (b), attempt tracking without `wake_at`, at virtual start `t0Ms`: a row without an attempts
 * row (wakes at 0), one backing off (attempts 3, retry at 4 s, cursor 2), one parked (attempts 8, retry
 * at 1 h), one whose deadline (20 s) lies beyond its retry (1 s), and a fresh one with a cursor (2 s).
 */
export const attemptsWithoutWakeLayout = (t0Ms: number): LegacyLayout => ({
  kind: "attemptsWithoutWake",
  rows: [
    { ...job("once"), runAtMs: t0Ms, repeatEveryMs: null, payloadText: "1" },
    { ...job("backoff"), runAtMs: t0Ms, repeatEveryMs: null, payloadText: "2" },
    { ...job("parked"), runAtMs: t0Ms - 10_000, repeatEveryMs: null, payloadText: "3" },
    { ...job("late"), runAtMs: t0Ms + 20_000, repeatEveryMs: null, payloadText: "4" },
    { ...job("fresh"), runAtMs: t0Ms + 2_000, repeatEveryMs: null, payloadText: "5" }
  ],
  attempts: [
    { ...job("backoff"), revision: "r-backoff", attempts: 3, parked: false, retryAtMs: t0Ms + 4_000, progress: 2 },
    { ...job("parked"), revision: "r-parked", attempts: 8, parked: true, retryAtMs: t0Ms + 3_600_000, progress: -1 },
    { ...job("late"), revision: "r-late", attempts: 1, parked: false, retryAtMs: t0Ms + 1_000, progress: -1 },
    { ...job("fresh"), revision: "r-fresh", attempts: 0, parked: false, retryAtMs: null, progress: 5 }
  ]
})

/** What the catalog says about the alarm tables. */
export interface LayoutShape {
  readonly wakeAtColumn: boolean
  readonly wakeIndex: boolean
  readonly runAtIndex: boolean
  readonly attemptsTable: boolean
  readonly scheduledRows: number
}

/** The shape of the alarm tables in the database behind `sql`. */
export const layoutShape = (sql: SqlClient.SqlClient, dialect: Dialect): Effect.Effect<LayoutShape, unknown> =>
  Effect.gen(function*() {
    const catalog = alarmsDialect(dialect)
    const columns = yield* sql.unsafe<{ readonly name: string }>(catalog.columnNamesSql, [LEGACY_SCHEDULED_TABLE])
    const attemptsColumns = yield* sql.unsafe(catalog.columnNamesSql, [LEGACY_ATTEMPTS_TABLE])
    const count = yield* sql<{ readonly n: unknown }>`SELECT COUNT(*) AS n FROM ${sql.literal(LEGACY_SCHEDULED_TABLE)}`
    return {
      wakeAtColumn: columns.some((column) => column.name === "wake_at"),
      wakeIndex: (yield* sql.unsafe(catalog.indexExistsSql, [UPSTREAM_WAKE_INDEX])).length > 0,
      runAtIndex: (yield* sql.unsafe(catalog.indexExistsSql, [LEGACY_RUN_AT_INDEX])).length > 0,
      attemptsTable: attemptsColumns.length > 0,
      scheduledRows: Number(count[0]?.n)
    }
  })

/** The shape of a layout as written, before any migration. */
export const unmigratedShape = (layout: LegacyLayout): LayoutShape => ({
  wakeAtColumn: false,
  wakeIndex: false,
  runAtIndex: true,
  attemptsTable: layout.kind === "attemptsWithoutWake",
  scheduledRows: layout.rows.length
})

/** The shape after migration with `rows` scheduled rows. */
export const migratedShape = (rows: number): LayoutShape => ({
  wakeAtColumn: true,
  wakeIndex: true,
  runAtIndex: false,
  attemptsTable: true,
  scheduledRows: rows
})

/** `wake_at` of every stored row relative to `t0Ms`, keyed by alarm id. */
export const wakeAtById = (sql: SqlClient.SqlClient, t0Ms: number): Effect.Effect<Record<string, number>, unknown> =>
  Effect.map(
    sql<{ readonly alarm_id: string; readonly wake_at: unknown }>`SELECT alarm_id, wake_at FROM ${sql.literal(LEGACY_SCHEDULED_TABLE)}`,
    (rows) => Object.fromEntries(rows.map((row) => [row.alarm_id, Number(row.wake_at) - t0Ms]))
  )

/** Status of `job/id` as `[attempts, parked, runAt, retryAt]` relative to `t0Ms` (null when absent). */
export const statusTuple = (alarms: AlarmScheduler, id: string, t0Ms: number) =>
  Effect.map(alarms.getAlarmStatus(job(id)), (status) =>
    status === undefined ? null : [
      status.attempts,
      status.parked,
      DateTime.toEpochMillis(status.runAt) - t0Ms,
      status.retryAt === undefined ? null : DateTime.toEpochMillis(status.retryAt) - t0Ms
    ])

/** What a timeline needs from its environment: the scheduler, the clock and the platform alarm. */
export interface TimelineEnvironment {
  readonly alarms: AlarmScheduler
  readonly t0Ms: number
  readonly setTime: (offsetMs: number) => Effect.Effect<void>
  /** Platform alarm relative to `t0Ms`, or null. */
  readonly platformAlarm: Effect.Effect<number | null, unknown>
  /** Number of reports delivered to the `AlarmReporter` so far. */
  readonly reports: () => number
}

/** One dispatch at `offsetMs`: the handler fails for `failing` ids; returns handled/failed ids, scheduledAt and the platform alarm. */
const dispatchAt = (env: TimelineEnvironment, offsetMs: number, failing: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    yield* env.setTime(offsetMs)
    const pass = yield* env.alarms.processDueAlarms((event) =>
      failing.includes(event.id) ? Effect.fail("handler failed") : Effect.void
    )
    return {
      handled: pass.handled.map((event) => [event.id, DateTime.toEpochMillis(event.scheduledAt) - env.t0Ms]),
      failed: pass.failed.map((failure) => failure.id),
      platform: yield* env.platformAlarm
    }
  })

/**
 * Layout (b) after migration: statuses keep their attempt state, a replayed cursor is still dropped,
 * and each row fires at `max(run_at, retry_at ?? run_at)`; a parked row that fails again stays parked
 * without a new report. See `attemptsWithoutWakeLayout` for the rows.
 */
export const attemptsWithoutWakeTimeline = (env: TimelineEnvironment) =>
  Effect.gen(function*() {
    const statuses: Record<string, unknown> = {}
    for (const id of ["once", "backoff", "parked", "late", "fresh"]) statuses[id] = yield* statusTuple(env.alarms, id, env.t0Ms)
    const platformAfterMigration = yield* env.platformAlarm
    // A replayed cursor (2 <= stored 2) from outside a pass writes nothing (R11): the cursor survived.
    yield* env.alarms.scheduleAlarm({ ...job("backoff"), payload: "replay", runAt: DateTime.makeUnsafe(env.t0Ms + 50), progress: 2 })
    const afterReplay = yield* statusTuple(env.alarms, "backoff", env.t0Ms)
    const passes = [
      yield* dispatchAt(env, 1_000),
      yield* dispatchAt(env, 2_000),
      yield* dispatchAt(env, 4_000, ["backoff"])
    ]
    const backoffAfterFailure = yield* statusTuple(env.alarms, "backoff", env.t0Ms)
    passes.push(yield* dispatchAt(env, 20_000))
    const reportsBefore = env.reports()
    passes.push(yield* dispatchAt(env, 3_600_000, ["parked"]))
    return {
      statuses,
      platformAfterMigration,
      afterReplay,
      passes,
      backoffAfterFailure,
      parkedAfterFailure: yield* statusTuple(env.alarms, "parked", env.t0Ms),
      newReports: env.reports() - reportsBefore
    }
  })

/** What `attemptsWithoutWakeTimeline` must return. */
export const attemptsWithoutWakeExpected = {
  statuses: {
    once: [0, false, 0, null],
    backoff: [3, false, 0, 4_000],
    parked: [8, true, -10_000, 3_600_000],
    late: [1, false, 20_000, 1_000],
    fresh: [0, false, 2_000, null]
  },
  platformAfterMigration: 0,
  afterReplay: [3, false, 0, 4_000],
  passes: [
    { handled: [["once", 0]], failed: [], platform: 2_000 },
    { handled: [["fresh", 2_000]], failed: [], platform: 4_000 },
    // attempts 4: retry after 8 s; run_at (scheduledAt) stays 0.
    { handled: [], failed: ["backoff"], platform: 12_000 },
    { handled: [["backoff", 0], ["late", 20_000]], failed: [], platform: 3_600_000 },
    { handled: [], failed: ["parked"], platform: 7_200_000 }
  ],
  backoffAfterFailure: [4, false, 0, 12_000],
  parkedAfterFailure: [8, true, -10_000, 7_200_000],
  newReports: 0
}

/** Wake of every row of `attemptsWithoutWakeLayout` after migration: `max(run_at, retry_at ?? run_at)`. */
export const attemptsWithoutWakeWakes = { once: 0, backoff: 4_000, parked: 3_600_000, late: 20_000, fresh: 2_000 }

/**
 * Layout (a) after migration: rows without attempts state fire at their run_at, the repeat moves on,
 * the undecodable row backs off, the future row stays. See `beforeAttemptsLayout`.
 */
export const beforeAttemptsTimeline = (env: TimelineEnvironment) =>
  Effect.gen(function*() {
    const statuses: Record<string, unknown> = {}
    for (const id of ["once", "repeat", "broken", "future"]) statuses[id] = yield* statusTuple(env.alarms, id, env.t0Ms)
    const pass = yield* dispatchAt(env, 1_000)
    return {
      statuses,
      pass,
      repeat: yield* statusTuple(env.alarms, "repeat", env.t0Ms),
      broken: yield* statusTuple(env.alarms, "broken", env.t0Ms)
    }
  })

/** What `beforeAttemptsTimeline` must return. */
export const beforeAttemptsExpected = {
  statuses: {
    once: [0, false, 0, null],
    repeat: [0, false, 500, null],
    broken: [0, false, 800, null],
    future: [0, false, 10_000, null]
  },
  // The undecodable payload fails without a handler call and retries at +1 s.
  pass: { handled: [["once", 0], ["repeat", 500]], failed: ["broken"], platform: 2_000 },
  repeat: [0, false, 61_000, null],
  broken: [1, false, 800, 2_000]
}
