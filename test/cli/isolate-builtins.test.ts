/**
 * Built-in adapters checked side by side each get a core: `run` puts every adapter that works on the
 * calling thread, after the first, in a child process (`builtInsToIsolate`), and the report is the
 * one the in-process run writes, apart from wall-clock fields.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { builtInsToIsolate } from "../../cli/adapterRegistry.ts"
import { resolveIsolatedAdapters } from "../../cli/isolation.ts"
import { runConformance } from "../../harness/Conformance.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { adapterSuite } from "../../properties/plugins.ts"
import { withoutWallClock } from "../support/wallClock.ts"

const ADAPTERS = ["sqlite", "pglite"]

const runWith = (isolate: ReadonlySet<string>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const adapters = yield* resolveIsolatedAdapters(ADAPTERS, undefined, { cwd: process.cwd(), env: process.env }, isolate)
    const report = yield* runConformance({ kind: "run", adapters, suites: [adapterSuite, alarmsSuite()], runs: 4, seed: 7, suiteHash: "unhashed", adapterConcurrency: 2 })
    // An adapter made in a child process runs each property there (its `host`).
    const hosted = yield* Effect.forEach(adapters, (definition) => Effect.scoped(Effect.map(definition.make, (adapter) => adapter.host !== undefined)))
    return { report, hosted }
  })))

describe("built-in adapters side by side", () => {
  it("isolates every calling-thread adapter after the first, and none when they run one at a time", () => {
    expect([...builtInsToIsolate(["sqlite", "pglite", "postgres", "do-sqlite"], 2)]).toEqual(["pglite", "postgres"])
    expect([...builtInsToIsolate(["do-sqlite", "pglite"], 2)]).toEqual([])
    expect([...builtInsToIsolate(["./theirs.ts", "sqlite", "postgres"], 2)]).toEqual(["postgres"])
    expect([...builtInsToIsolate(["sqlite", "pglite", "postgres"], 1)]).toEqual([])
  })

  it("give the same report with the second one in a child process as in-process", async () => {
    const inProcess = await runWith(new Set())
    const isolated = await runWith(builtInsToIsolate(ADAPTERS, 2))
    expect(inProcess.hosted).toEqual([false, false])
    expect(isolated.hosted).toEqual([false, true])
    expect(withoutWallClock(isolated.report)).toEqual(withoutWallClock(inProcess.report))
    expect(inProcess.report.summary.pass).toBeGreaterThan(20)
    expect(inProcess.report.summary.fail + inProcess.report.summary.error).toBe(0)
  }, 180_000)
})
