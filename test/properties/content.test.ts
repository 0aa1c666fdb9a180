/**
 * The content suite on sqlite at the gate's budget and seed: every requirement passes (CNT-012, which
 * needs independent connections and row locks, is not-applicable), no requirement is unknown, every
 * property spends its whole budget, and the situations the second targeted units aim at are each reached
 * in at least 10 scenarios; a generated scenario re-executes to the same trace (determinism);
 * a third-party binding through the public API (`examples/third-party-content`) passes too.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { sqliteAdapter, makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { runConformance } from "../../harness/Conformance.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentSuite } from "../../properties/content/index.ts"
import thirdParty from "../../examples/third-party-content/index.ts"
import { contentWithoutHookPoints } from "../allowed/content/variants.ts"

describe("content suite on sqlite", () => {
  it("passes every applicable requirement at the gate's budget, none unknown", async () => {
    const report = await Effect.runPromise(runConformance({ kind: "run", adapters: [sqliteAdapter], suites: [contentSuite()], runs: DEFAULT_RUNS, seed: DEFAULT_SEED, suiteHash: "unhashed" }))
    const [sqlite] = report.adapters
    const verdicts = Object.fromEntries(sqlite!.requirements.map((requirement) => [requirement.requirementId, requirement.verdict]))
    expect(verdicts["CNT-012"]).toBe("not-applicable")
    for (const [id, verdict] of Object.entries(verdicts)) if (id !== "CNT-012") expect(verdict, `${id}: ${sqlite!.requirements.find((r) => r.requirementId === id)?.reason}`).toBe("pass")
    for (const run of sqlite!.properties) expect(run.runsExecuted, run.propertyId).toBe(DEFAULT_RUNS)
    // The second targeted units (`targeted.ts`) reach these in at least 10 scenarios each (4, 4 and 7 without them).
    const reached = Object.fromEntries((sqlite!.coverage ?? []).find((table) => table.subject === "content")!.situations.map((row) => [row.situation, row.scenarios]))
    for (const situation of ["grantSizeMismatch", "sweepRaceUpload", "detachExisting"]) expect(reached[situation], situation).toBeGreaterThanOrEqual(10)
  }, 120_000)

  it("re-executes a scenario of each property to the same trace", async () => {
    const adapter = makeSqliteAdapter()
    for (const property of contentSuite().properties) {
      const [scenario] = fc.sample(property.scenario(adapter.capabilities), { numRuns: 1, seed: 7 })
      const first = await Effect.runPromise(executeScenario(property, adapter, scenario))
      const second = await Effect.runPromise(executeScenario(property, adapter, scenario))
      expect(first.divergence, property.id).toBeNull()
      expect(JSON.stringify(second.steps), property.id).toBe(JSON.stringify(first.steps))
    }
  }, 60_000)

  it("a store without hook points passes the race property (the racer runs before or after the whole sweep)", async () => {
    const suite = contentSuite(contentWithoutHookPoints.implementation)
    const races = { ...suite, properties: suite.properties.filter((property) => property.id === "content/races") }
    const report = await Effect.runPromise(runConformance({ kind: "run", adapters: [sqliteAdapter], suites: [races], runs: 30, seed: DEFAULT_SEED, suiteHash: "unhashed" }))
    const [run] = report.adapters[0]!.properties
    expect(run!.verdict, JSON.stringify(run)).toBe("pass")
  }, 60_000)

  it("a third-party store bound through the public API passes the model property", async () => {
    const suite = contentSuite(thirdParty.implementation)
    const model = { ...suite, properties: suite.properties.filter((property) => property.id === "content/model") }
    const report = await Effect.runPromise(runConformance({ kind: "run", adapters: [sqliteAdapter], suites: [model], runs: 30, seed: DEFAULT_SEED, suiteHash: "unhashed" }))
    expect(report.adapters[0]!.properties.map((run) => run.verdict)).toEqual(["pass"])
  }, 60_000)
})
