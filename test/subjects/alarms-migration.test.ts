/**
 * Migration of upstream's two older layouts (R3) by the shipped scheduler on sqlite, pglite and
 * postgres. The harness writes each layout itself (`writeLegacyLayout`), in upstream's names:
 * (a) before attempt tracking, (b) attempt tracking without `wake_at`, with backing-off and parked
 * attempts rows. Building the scheduler touches no storage; every transaction migrates first, so a
 * transaction that fails (its closure, or its platform alarm write) leaves the older layout untouched;
 * after migration, every row keeps firing at `max(run_at, retry_at ?? run_at)`.
 */
import { Effect, Exit } from "effect"
import { beforeEach, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { legacyPlatformAlarmMs, type LegacyLayout, writeLegacyLayout } from "../../properties/alarms/legacyLayout.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import type { AlarmsFixture } from "./alarmsSupport.ts"
import { at, platformAlarmRel, runAlarms, setTime, T0 } from "./alarmsSupport.ts"
import {
  attemptsWithoutWakeExpected,
  attemptsWithoutWakeLayout,
  attemptsWithoutWakeTimeline,
  attemptsWithoutWakeWakes,
  beforeAttemptsExpected,
  beforeAttemptsLayout,
  beforeAttemptsTimeline,
  layoutShape,
  migratedShape,
  type TimelineEnvironment,
  unmigratedShape,
  wakeAtById
} from "./alarmsLegacy.ts"

const adapters = useNodeAdapters()

const layouts: ReadonlyArray<LegacyLayout> = [beforeAttemptsLayout(T0), attemptsWithoutWakeLayout(T0)]

/** The timeline environment of a test fixture. */
const environmentOf = (f: AlarmsFixture): TimelineEnvironment => ({
  alarms: f.alarms,
  t0Ms: T0,
  setTime,
  platformAlarm: platformAlarmRel(f),
  reports: () => f.reports.length
})

for (const name of NODE_ADAPTER_NAMES) {
  describe(`alarms migration of the older layouts on ${name} (R3)`, () => {
    let adapter: StorageAdapter
    beforeEach(() => {
      adapter = adapters[name]!
    })

    /** Writes `layout` (and the platform alarm at its smallest wake) before the scheduler is built. */
    const withLayout = <A>(layout: LegacyLayout, body: (f: AlarmsFixture) => Effect.Effect<A, unknown>) =>
      runAlarms(shippedAlarms, (f) =>
        Effect.gen(function*() {
          const platformAlarmMs = legacyPlatformAlarmMs(layout)
          if (platformAlarmMs !== null) yield* f.platformAlarm.set(platformAlarmMs)
          return yield* body(f)
        }), { adapter, beforeMake: (sql) => writeLegacyLayout(sql, adapter.dialect, layout) })

    it("layout (a), before attempt tracking: rows fire at their run_at after migration", async () => {
      const layout = beforeAttemptsLayout(T0)
      const result = await withLayout(layout, (f) =>
        Effect.gen(function*() {
          const timeline = yield* beforeAttemptsTimeline(environmentOf(f))
          return { timeline, shape: yield* layoutShape(f.sql, f.dialect) }
        }))
      expect(result.timeline).toEqual(beforeAttemptsExpected)
      expect(result.shape).toEqual(migratedShape(3))
    })

    it("layout (b), attempts without wake_at: backing-off and parked rows keep their state and fire at their retry", async () => {
      const layout = attemptsWithoutWakeLayout(T0)
      const result = await withLayout(layout, (f) =>
        Effect.gen(function*() {
          yield* f.alarms.getAlarmStatus({ tag: "job", id: "once" }) // migrates, outside a transaction
          const wakes = yield* wakeAtById(f.sql, T0)
          const shape = yield* layoutShape(f.sql, f.dialect)
          const timeline = yield* attemptsWithoutWakeTimeline(environmentOf(f))
          return { wakes, shape, timeline }
        }))
      expect(result.wakes).toEqual(attemptsWithoutWakeWakes)
      expect(result.shape).toEqual(migratedShape(layout.rows.length))
      expect(result.timeline).toEqual(attemptsWithoutWakeExpected)
    })

    for (const layout of layouts) {
      it(`layout ${layout.kind}: make touches nothing, and failed transactions leave the older layout untouched`, async () => {
        const result = await withLayout(layout, (f) =>
          Effect.gen(function*() {
            const afterMake = yield* layoutShape(f.sql, f.dialect)
            const closureFailed = yield* Effect.exit(
              f.alarms.transaction((tx) =>
                tx.scheduleAlarm({ tag: "job", id: "new", payload: 1, runAt: at(-5_000) }).pipe(
                  Effect.andThen(Effect.fail("closure failed"))
                )
              )
            )
            const afterClosureFailure = yield* layoutShape(f.sql, f.dialect)
            f.failNextPlatformAlarmSet()
            const setAlarmFailed = yield* Effect.exit(
              f.alarms.scheduleAlarm({ tag: "job", id: "new", payload: 1, runAt: at(-5_000) })
            )
            const afterSetAlarmFailure = yield* layoutShape(f.sql, f.dialect)
            const platformBefore = yield* platformAlarmRel(f)
            yield* f.alarms.scheduleAlarm({ tag: "job", id: "new", payload: 1, runAt: at(-5_000) })
            return {
              afterMake,
              closureFailed: Exit.isFailure(closureFailed),
              afterClosureFailure,
              setAlarmFailed: Exit.isFailure(setAlarmFailed),
              afterSetAlarmFailure,
              platformBefore,
              afterCommit: yield* layoutShape(f.sql, f.dialect),
              platformAfter: yield* platformAlarmRel(f)
            }
          }))
        const untouched = unmigratedShape(layout)
        expect(result.afterMake).toEqual(untouched)
        expect(result.closureFailed).toBe(true)
        expect(result.afterClosureFailure).toEqual(untouched)
        expect(result.setAlarmFailed).toBe(true)
        expect(result.afterSetAlarmFailure).toEqual(untouched)
        expect(result.platformBefore).toBe(0)
        expect(result.afterCommit).toEqual(migratedShape(layout.rows.length + 1))
        expect(result.platformAfter).toBe(-5_000)
      })
    }
  })
}
