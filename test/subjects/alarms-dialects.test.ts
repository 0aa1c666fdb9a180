/**
 * The same shipped alarms code on the Postgres dialect (PGlite in-process and a real Postgres server):
 * BIGINT epoch-ms columns, GREATEST in the backfill, the catalog queries of the migration, upserts
 * and RETURNING. Every witness scenario, the default timeline and the migration run on each; the
 * transaction lock (an advisory lock, taken before the tables exist) serializes independent connections.
 */
import { Effect, Exit, Fiber, Scope } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { makePgliteAdapter } from "../../adapters/pglite/index.ts"
import { emulatedPlatformAlarm } from "../../adapters/emulatedPlatformAlarm.ts"
import { makePostgresAdapter } from "../../adapters/postgres/index.ts"
import { labelled, makeScriptedHooks, withScriptedHooks } from "../../harness/HookPoints.ts"
import { alarmsDialect } from "../../subjects/alarms/dialect.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { OLD_RUN_AT_INDEX, SCHEDULED_TABLE, WAKE_INDEX } from "../../subjects/alarms/schema.ts"
import { writeLegacyLayout } from "../../properties/alarms/legacyLayout.ts"
import { h1ContentAck } from "../known-bad/alarms/h1-content-ack.ts"
import { at, platformAlarmRel, rel, runAlarms, setTime, smallestWakeRel, T0 } from "./alarmsSupport.ts"
import { alarmWitnesses, runWitness } from "./alarmsWitnesses.ts"

const backends: ReadonlyArray<{
  readonly name: string
  readonly make: Effect.Effect<StorageAdapter, unknown, Scope.Scope>
}> = [
  { name: "pglite", make: makePgliteAdapter },
  { name: "postgres", make: makePostgresAdapter().make }
]

for (const backend of backends) {
  describe(`alarms on ${backend.name}`, () => {
    const scope = Scope.makeUnsafe()
    let adapter: StorageAdapter

    beforeAll(async () => {
      adapter = await Effect.runPromise(Scope.provide(backend.make, scope))
    })

    afterAll(async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    it("passes every witness scenario, and the H1 variant still fails its own", async () => {
      const problems: Array<string> = []
      for (const [id, witness] of Object.entries(alarmWitnesses)) {
        const problem = await runWitness(shippedAlarms, witness, adapter)
        if (problem !== null) problems.push(`${id}: ${problem}`)
      }
      expect(problems).toEqual([])
      expect(await runWitness(h1ContentAck.implementation, alarmWitnesses["h1-content-ack"]!, adapter)).not.toBeNull()
    })

    it("follows the default backoff timeline and parks once", async () => {
      const result = await runAlarms(shippedAlarms, (f) =>
        Effect.gen(function*() {
          yield* f.alarms.scheduleAlarm({ tag: "job", id: "a", payload: { n: 1 }, runAt: at(0) })
          const delays: Array<number> = []
          let nowMs = 0
          for (let call = 1; call <= 9; call++) {
            yield* f.alarms.processDueAlarms(() => Effect.fail("boom"))
            const retryAt = rel((yield* f.alarms.getAlarmStatus({ tag: "job", id: "a" }))!.retryAt)!
            expect(yield* platformAlarmRel(f)).toBe(retryAt)
            delays.push(retryAt - nowMs)
            nowMs = retryAt
            yield* setTime(nowMs)
          }
          return { delays, reports: f.reports.length }
        }), { adapter })
      expect(result.delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 3_600_000, 3_600_000])
      expect(result.reports).toBe(1)
    })

    it("migrates rows of the older layout, which keep firing", async () => {
      const dialect = alarmsDialect("postgres")
      const result = await runAlarms(shippedAlarms, (f) =>
        Effect.gen(function*() {
          // Building the scheduler touched nothing; its first read migrates.
          yield* f.alarms.getAlarmStatus({ tag: "job", id: "once" })
          const wakeIndex = yield* f.sql.unsafe(dialect.indexExistsSql, [WAKE_INDEX])
          const oldIndex = yield* f.sql.unsafe(dialect.indexExistsSql, [OLD_RUN_AT_INDEX])
          const rows = yield* f.sql<{ readonly run_at: unknown; readonly wake_at: unknown }>`
            SELECT run_at, wake_at FROM ${f.sql.literal(SCHEDULED_TABLE)}`
          yield* setTime(1_000)
          const pass = yield* f.alarms.processDueAlarms(() => Effect.void)
          return {
            wakeIndex: wakeIndex.length,
            oldIndex: oldIndex.length,
            backfilled: rows.every((row) => Number(row.run_at) === Number(row.wake_at)),
            handled: pass.handled.map((event) => event.id),
            repeat: rel((yield* f.alarms.getAlarmStatus({ tag: "job", id: "repeat" }))?.runAt),
            platform: yield* platformAlarmRel(f),
            smallest: yield* smallestWakeRel(f)
          }
        }), {
        adapter,
        // The harness writes upstream's older layout itself (both layouts: alarms-migration.test.ts).
        beforeMake: (sql) =>
          writeLegacyLayout(sql, "postgres", {
            kind: "beforeAttempts",
            rows: [
              { tag: "job", id: "once", runAtMs: T0, repeatEveryMs: null, payloadText: "1" },
              { tag: "job", id: "repeat", runAtMs: T0 + 500, repeatEveryMs: 60_000, payloadText: "2" }
            ]
          })
      })
      expect(result).toEqual({
        wakeIndex: 1,
        oldIndex: 0,
        backfilled: true,
        handled: ["once", "repeat"],
        repeat: 61_000,
        platform: 61_000,
        smallest: 61_000
      })
    })
  })
}

describe("alarms on postgres: transactions on independent connections", () => {
  const scope = Scope.makeUnsafe()
  let adapter: StorageAdapter

  beforeAll(async () => {
    adapter = await Effect.runPromise(Scope.provide(makePostgresAdapter().make, scope))
  })

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  /** Bound on polling for "the second transaction waits on a lock" (5 ms apart). */
  const MAX_LOCK_POLLS = 2_000

  it("serializes scheduler transactions, so the platform alarm is the smallest wake after both commit", async () => {
    const result = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const db = yield* adapter.open({ connections: 3 })
      const [sql0, sql1, observer] = db.connections as [typeof db.sql, typeof db.sql, typeof db.sql]
      const first = yield* shippedAlarms.make({ sql: sql0, dialect: "postgres", platformAlarm: emulatedPlatformAlarm(sql0) })
      const second = yield* shippedAlarms.make({ sql: sql1, dialect: "postgres", platformAlarm: emulatedPlatformAlarm(sql1) })
      const secondPid = (yield* sql1<{ readonly pid: unknown }>`SELECT pg_backend_pid() AS pid`)[0]!.pid
      const hooks = yield* makeScriptedHooks
      // T1 reconciles (platform alarm = 1 s, its own uncommitted row) and pauses before commit.
      yield* hooks.pauseAt("t1", "alarms.afterReconcile")
      const t1 = yield* Effect.forkChild(withScriptedHooks(hooks, labelled("t1",
        first.scheduleAlarm({ tag: "job", id: "a", payload: 1, runAt: at(1_000) }))))
      yield* hooks.awaitPaused("t1")
      // T2 schedules a later alarm; without serialization its reconcile would not see T1's row and
      // would overwrite the platform alarm with 5 s after T1 commits.
      const t2 = yield* Effect.forkChild(withScriptedHooks(hooks, labelled("t2",
        second.scheduleAlarm({ tag: "job", id: "b", payload: 2, runAt: at(5_000) }))))
      let waiting = 0
      for (let poll = 0; poll < MAX_LOCK_POLLS && waiting === 0; poll++) {
        const rows = yield* observer<{ readonly n: unknown }>`SELECT cardinality(pg_blocking_pids(${secondPid})) AS n`
        waiting = Number(rows[0]?.n ?? 0)
        if (waiting === 0) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
      }
      yield* hooks.release("t1")
      const exits = [yield* Fiber.await(t1), yield* Fiber.await(t2)]
      return {
        waiting,
        ok: exits.map(Exit.isSuccess),
        platform: yield* Effect.map(db.platformAlarm.get, (ms) => (ms === null ? null : ms - T0))
      }
    })).pipe(Effect.provide(TestClock.layer())))
    expect(result.waiting).toBeGreaterThan(0)
    expect(result.ok).toEqual([true, true])
    expect(result.platform).toBe(1_000)
  })
})
