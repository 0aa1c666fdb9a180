/**
 * Migration of upstream's two older layouts (R3) on Durable Object SQLite, with the real platform
 * alarm: the harness writes each layout (`writeLegacyLayout`), building the scheduler touches nothing,
 * a transaction whose closure fails leaves the older layout untouched (the DDL rolls back with the
 * Durable Object transaction), and after migration the rows of layout (b), backing off and parked,
 * keep firing at `max(run_at, retry_at ?? run_at)`. The same timelines run on sqlite, pglite and
 * postgres in test/subjects/alarms-migration.test.ts.
 */
import { env, runInDurableObject } from "cloudflare:test"
import type { DurableObjectStorage } from "@cloudflare/workers-types"
import { DateTime, Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { makeDoSqlClient, nativePlatformAlarm, wipeStorage } from "../../adapters/do-sqlite/adapter.ts"
import { VIRTUAL_EPOCH_MS } from "../../harness/VirtualClock.ts"
import { legacyPlatformAlarmMs, type LegacyLayout, writeLegacyLayout } from "../../properties/alarms/legacyLayout.ts"
import { AlarmReporter, type AlarmScheduler, shippedAlarms } from "../../subjects/alarms/index.ts"
import {
  attemptsWithoutWakeExpected,
  attemptsWithoutWakeLayout,
  attemptsWithoutWakeTimeline,
  beforeAttemptsExpected,
  beforeAttemptsLayout,
  beforeAttemptsTimeline,
  type LayoutShape,
  layoutShape,
  migratedShape,
  type TimelineEnvironment,
  unmigratedShape
} from "../subjects/alarmsLegacy.ts"

const namespace = (env as unknown as { readonly CONFORMANCE: DurableObjectNamespace }).CONFORMANCE
const T0 = VIRTUAL_EPOCH_MS

/** Runs `use` in a wiped object holding `layout`, with the shipped scheduler built over it, at virtual `T0`. */
const withLayout = <A>(
  name: string,
  layout: LegacyLayout,
  use: (environment: TimelineEnvironment, shape: Effect.Effect<LayoutShape, unknown>) => Effect.Effect<A, unknown>
): Promise<A> =>
  runInDurableObject(namespace.get(namespace.idFromName(name)), (_instance, state) => {
    const storage = state.storage as unknown as DurableObjectStorage
    let reports = 0
    return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      yield* wipeStorage(storage)
      yield* TestClock.setTime(T0)
      const sql = yield* makeDoSqlClient(storage)
      const platformAlarm = nativePlatformAlarm(storage)
      yield* writeLegacyLayout(sql, "sqlite", layout)
      const platformAlarmMs = legacyPlatformAlarmMs(layout)
      if (platformAlarmMs !== null) yield* platformAlarm.set(platformAlarmMs)
      const alarms: AlarmScheduler = yield* shippedAlarms.make({ sql, dialect: "sqlite", platformAlarm })
      const environment: TimelineEnvironment = {
        alarms,
        t0Ms: T0,
        setTime: (offsetMs) => TestClock.setTime(T0 + offsetMs),
        platformAlarm: Effect.map(platformAlarm.get, (ms) => (ms === null ? null : ms - T0)),
        reports: () => reports
      }
      const result = yield* use(environment, layoutShape(sql, "sqlite"))
      yield* wipeStorage(storage)
      return result
    })).pipe(
      Effect.provideService(AlarmReporter, () => Effect.sync(() => void (reports += 1))),
      Effect.provide(TestClock.layer())
    ))
  })

describe("alarms migration of the older layouts on Durable Object SQLite (R3)", () => {
  it("layout (a), before attempt tracking: rows fire at their run_at after migration", async () => {
    const result = await withLayout("migration-a", beforeAttemptsLayout(T0), (environment, shape) =>
      Effect.gen(function*() {
        const timeline = yield* beforeAttemptsTimeline(environment)
        return { timeline, shape: yield* shape }
      }))
    expect(result.timeline).toEqual(beforeAttemptsExpected)
    expect(result.shape).toEqual(migratedShape(3))
  })

  it("layout (b): backing-off and parked rows keep their state and fire at their retry", async () => {
    const layout = attemptsWithoutWakeLayout(T0)
    const result = await withLayout("migration-b", layout, (environment, shape) =>
      Effect.gen(function*() {
        const timeline = yield* attemptsWithoutWakeTimeline(environment)
        return { timeline, shape: yield* shape }
      }))
    expect(result.timeline).toEqual(attemptsWithoutWakeExpected)
    expect(result.shape).toEqual(migratedShape(1))
  })

  for (const layout of [beforeAttemptsLayout(T0), attemptsWithoutWakeLayout(T0)]) {
    it(`layout ${layout.kind}: a transaction whose closure fails leaves the older layout untouched`, async () => {
      const result = await withLayout(`migration-rollback-${layout.kind}`, layout, (environment, shape) =>
        Effect.gen(function*() {
          const afterMake = yield* shape
          const input = { tag: "job", id: "new", payload: 1, runAt: DateTime.makeUnsafe(T0 + 100) }
          const failed = yield* Effect.exit(
            environment.alarms.transaction((tx) => tx.scheduleAlarm(input).pipe(Effect.andThen(Effect.fail("closure failed"))))
          )
          const afterFailure = yield* shape
          const platformBefore = yield* environment.platformAlarm
          yield* environment.alarms.scheduleAlarm(input)
          return { afterMake, failed: Exit.isFailure(failed), afterFailure, platformBefore, afterCommit: yield* shape }
        }))
      expect(result.afterMake).toEqual(unmigratedShape(layout))
      expect(result.failed).toBe(true)
      expect(result.afterFailure).toEqual(unmigratedShape(layout))
      expect(result.platformBefore).toBe(0)
      expect(result.afterCommit).toEqual(migratedShape(layout.rows.length + 1))
    })
  }
})
