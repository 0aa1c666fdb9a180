/**
 * The shipped clocks engine directly on SQLite under a virtual clock: a live timer fires at its
 * absolute deadline in one transaction with its records; a failed fire is retried after 100 ms; a
 * repeat completion answers Existing and still resumes; a restart's sweep arms a future clock; the
 * upstream-shaped example binding passes the suite.
 */
import { Effect, Exit, Option, References, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { runProperty } from "../../harness/Runner.ts"
import { withVirtualTime, advanceByMs } from "../../harness/VirtualClock.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import { makeHarnessJournal } from "../../properties/clocks/journalHarness.ts"
import { observeRows } from "../../properties/clocks/observe.ts"
import { upstreamClocks } from "../../examples/third-party-clocks/index.ts"
import { clocksDialect } from "../../subjects/clocks/dialect.ts"
import { shippedClocks } from "../../subjects/clocks/index.ts"

interface Resumed {
  readonly executionId: string
  readonly reason: string
}

/** Runs `body` against a fresh engine on a fresh SQLite database under virtual time. */
const withEngine = <A>(body: (tools: {
  readonly engine: Effect.Success<ReturnType<typeof shippedClocks.make>>
  readonly resumes: Array<Resumed>
  readonly failNextEmit: () => void
  readonly restart: Effect.Effect<Effect.Success<ReturnType<typeof shippedClocks.make>>, unknown>
  readonly rows: ReturnType<typeof observeRows>
}) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(withVirtualTime(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    const resumes: Array<Resumed> = []
    const { journal, controls } = yield* makeHarnessJournal(database.sql, clocksDialect("sqlite"), { latched: false, flushFailures: 0, lossy: [], nonJson: [], announced: [] })
    const build = Effect.gen(function*() {
      const scope = yield* Scope.make()
      const engine = yield* shippedClocks.make({
        sql: database.sql,
        dialect: "sqlite",
        journal,
        runs: { waiting: () => Effect.succeed(Option.none()) },
        owner: "p",
        journalSource: "engine",
        scheduleResume: (_flow, executionId, reason) => Effect.sync(() => void resumes.push({ executionId, reason }))
      }).pipe(Scope.provide(scope))
      return { scope, engine }
    })
    let current = yield* build
    const restart = Effect.gen(function*() {
      yield* Scope.close(current.scope, Exit.void)
      current = yield* build
      yield* current.engine.sweepDue("flow")
      return current.engine
    })
    return yield* body({ engine: current.engine, resumes, failNextEmit: () => controls.arm(1), restart, rows: observeRows(database.sql) })
  })).pipe(Effect.provideService(References.MinimumLogLevel, "None"))))

const clock = (name: string, durationMs: number) => ({ name, durationMs, deferred: { name: `${name}:fired` } })

describe("shipped clocks engine", () => {
  it("fires a live timer at its absolute deadline, once, with its records", async () => {
    const outcome = await withEngine(({ engine, resumes, rows }) =>
      Effect.gen(function*() {
        yield* engine.scheduleClock({ _tag: "flow" }, { executionId: "e1", clock: clock("t1", 1_000) })
        yield* advanceByMs(500)
        yield* engine.scheduleClock({ _tag: "flow" }, { executionId: "e1", clock: clock("t1", 1_000) })
        yield* advanceByMs(600)
        return { observed: yield* rows, resumes: [...resumes] }
      }))
    expect(outcome.observed.clocks).toHaveLength(1)
    const row = outcome.observed.clocks[0] as { readonly dueAtMs: number; readonly completedAtMs: number }
    expect(row.completedAtMs).toBe(row.dueAtMs)
    expect(outcome.resumes).toEqual([{ executionId: "e1", reason: "clock" }])
    expect(Object.values(outcome.observed.journal).map((record) => (record as { readonly eventType: string }).eventType).sort()).toEqual([
      "engine.clock-completed",
      "engine.clock-scheduled",
      "engine.deferred-completed"
    ])
  })

  it("retries a fire whose journal write failed after 100 ms", async () => {
    const outcome = await withEngine(({ engine, resumes, rows, failNextEmit }) =>
      Effect.gen(function*() {
        yield* engine.scheduleClock({ _tag: "flow" }, { executionId: "e1", clock: clock("t1", 1_000) })
        failNextEmit()
        yield* advanceByMs(1_000)
        const before = resumes.length
        yield* advanceByMs(100)
        return { before, after: resumes.length, observed: yield* rows }
      }))
    expect(outcome).toMatchObject({ before: 0, after: 1 })
    const row = outcome.observed.clocks[0] as { readonly dueAtMs: number; readonly completedAtMs: number }
    expect(row.completedAtMs - row.dueAtMs).toBe(100)
  })

  it("answers a repeat completion Existing, keeps the first value and resumes every call", async () => {
    const outcome = await withEngine(({ engine, resumes, rows }) =>
      Effect.gen(function*() {
        yield* engine.deferredDone({ flowName: "flow", executionId: "e1", deferredName: "sig", exit: { _tag: "Success", value: 1 } })
        yield* engine.deferredDone({ flowName: "flow", executionId: "e1", deferredName: "sig", exit: { _tag: "Success", value: 2 } })
        return { observed: yield* rows, resumes: resumes.length }
      }))
    expect(outcome.resumes).toBe(2)
    expect((outcome.observed.deferreds[0] as { readonly exit: unknown }).exit).toEqual({ _tag: "Success", value: 1 })
  })

  it("re-arms a future clock after a restart (its registration sweep)", async () => {
    const resumed = await withEngine(({ engine, resumes, restart }) =>
      Effect.gen(function*() {
        yield* engine.scheduleClock({ _tag: "flow" }, { executionId: "e1", clock: clock("t1", 5_000) })
        yield* restart
        yield* advanceByMs(5_000)
        return [...resumes]
      }))
    expect(resumed).toEqual([{ executionId: "e1", reason: "clock" }])
  })
})

describe("third-party binding", () => {
  it("an upstream-shaped engine bound through api.ts passes the clocks suite on sqlite", async () => {
    const adapter = makeSqliteAdapter()
    for (const property of clocksSuite(upstreamClocks).properties) {
      const run = await Effect.runPromise(runProperty({ property, adapter, seed: 7, runs: 15 }))
      expect(run.verdict, property.id).toBe("pass")
    }
  })
})
