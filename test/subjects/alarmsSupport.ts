/**
 * Test support for the alarms subject tests: a fresh SQLite database per test, an alarms
 * implementation built over it, a virtual clock (TestClock at `T0`), seeded randomness and a
 * recording reporter. Not a test file itself.
 */
import { DateTime, Effect, Random } from "effect"
import type { Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { TestClock } from "effect/testing"
import type { Dialect, PlatformAlarm, StorageAdapter } from "../../adapters/contract.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { makeStorageBoundary, type StorageBoundary } from "../../harness/StorageBoundary.ts"
import type { AlarmParked, AlarmScheduler, AlarmsImplementation, ScheduleConfiguration } from "../../subjects/alarms/api.ts"
import { AlarmReporter, ScheduleConfiguration as ScheduleConfigurationRef } from "../../subjects/alarms/api.ts"
import { SCHEDULED_TABLE } from "../../subjects/alarms/schema.ts"

/** Virtual start time of every test. */
export const T0 = Date.UTC(2026, 0, 1)

/** What a test body gets. */
export interface AlarmsFixture {
  readonly alarms: AlarmScheduler
  readonly sql: SqlClient.SqlClient
  /** The platform alarm slot as the scheduler sees it (possibly wrapped, see `failNextPlatformAlarmSet`). */
  readonly platformAlarm: PlatformAlarm
  /** Every report delivered to `AlarmReporter`, in order. */
  readonly reports: Array<AlarmParked>
  /** Makes the next `platformAlarm.set` fail (once), to force a rollback at reconcile. */
  readonly failNextPlatformAlarmSet: () => void
  readonly dialect: Dialect
  /** Builds another scheduler over the same database (a restart). */
  readonly restart: Effect.Effect<AlarmScheduler, unknown>
  /** The storage boundary the scheduler's client and platform alarm pass through (faults, crashes). */
  readonly boundary: StorageBoundary
}

/** Options of `runAlarms`. */
export interface RunAlarmsOptions {
  readonly seed?: string
  readonly configuration?: ScheduleConfiguration
  /** Runs before the scheduler is built (e.g. to write an older layout). */
  readonly beforeMake?: (sql: SqlClient.SqlClient) => Effect.Effect<void, unknown>
  /** The storage adapter; default a fresh in-memory SQLite database. */
  readonly adapter?: StorageAdapter
}

/** DateTime at `T0 + offsetMs`. */
export const at = (offsetMs: number): DateTime.Utc => DateTime.makeUnsafe(T0 + offsetMs)

/** Epoch ms of a DateTime, relative to `T0`. */
export const rel = (dateTime: DateTime.Utc | undefined): number | undefined =>
  dateTime === undefined ? undefined : DateTime.toEpochMillis(dateTime) - T0

/** Platform alarm relative to `T0`, or null. */
export const platformAlarmRel = (fixture: AlarmsFixture): Effect.Effect<number | null, unknown> =>
  Effect.map(fixture.platformAlarm.get, (ms) => (ms === null ? null : ms - T0))

/** Smallest `wake_at` over the stored rows relative to `T0` (ties by storage id), or null. */
export const smallestWakeRel = (fixture: AlarmsFixture): Effect.Effect<number | null, unknown> =>
  Effect.map(
    fixture.sql<{ readonly wake_at: unknown }>`SELECT wake_at FROM ${fixture.sql.literal(SCHEDULED_TABLE)} ORDER BY wake_at, storage_id LIMIT 1`,
    (rows) => (rows[0] === undefined ? null : Number(rows[0].wake_at) - T0)
  )

/** Sets the virtual clock to `T0 + offsetMs`. */
export const setTime = (offsetMs: number) => TestClock.setTime(T0 + offsetMs)

/**
 * Runs `body` against `implementation` over a fresh in-memory SQLite database under a virtual
 * clock starting at `T0` and a seeded `Random`.
 */
export const runAlarms = <A>(
  implementation: AlarmsImplementation,
  body: (fixture: AlarmsFixture) => Effect.Effect<A, unknown, Scope.Scope>,
  options: RunAlarmsOptions = {}
): Promise<A> => {
  const reports: Array<AlarmParked> = []
  const program = Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const adapter = options.adapter ?? makeSqliteAdapter()
    const db = yield* adapter.open()
    let failSets = 0
    const platformAlarm: PlatformAlarm = {
      get: db.platformAlarm.get,
      delete: db.platformAlarm.delete,
      set: (epochMs) =>
        Effect.suspend(() => {
          if (failSets > 0) {
            failSets -= 1
            return Effect.fail(
              new SqlError({ reason: new UnknownError({ message: "injected platform alarm failure", cause: undefined }) })
            )
          }
          return db.platformAlarm.set(epochMs)
        })
    }
    if (options.beforeMake !== undefined) yield* options.beforeMake(db.sql)
    const boundary = makeStorageBoundary(db.sql, platformAlarm)
    const make = implementation.make({ sql: boundary.sql, dialect: adapter.dialect, platformAlarm: boundary.platformAlarm })
    const alarms = yield* make
    const fixture: AlarmsFixture = {
      alarms,
      sql: db.sql,
      platformAlarm,
      reports,
      dialect: adapter.dialect,
      failNextPlatformAlarmSet: () => {
        failSets += 1
      },
      restart: make,
      boundary
    }
    return yield* body(fixture)
  })
  return Effect.runPromise(
    Effect.scoped(program).pipe(
      Effect.provideService(AlarmReporter, (event: AlarmParked) => Effect.sync(() => void reports.push(event))),
      Effect.provideService(ScheduleConfigurationRef, options.configuration ?? {}),
      Effect.provide(TestClock.layer()),
      Random.withSeed(options.seed ?? "alarms-test")
    )
  )
}
