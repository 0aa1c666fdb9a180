/**
 * The cron suite on SQLite: both properties pass with the shipped runtime, together they reach every
 * requirement, and a scenario executes identically twice (same trace, ids named the same way).
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { DEFAULT_SEED } from "../../harness/Budget.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import { cronSuite } from "../../properties/cron/index.ts"
import { cronRequirements } from "../../spec/cron.ts"

const adapter = makeSqliteAdapter()
const suite = cronSuite()

describe("cron suite on sqlite", () => {
  it("passes with the shipped runtime and reaches every requirement", async () => {
    const covered = new Set<string>()
    for (const property of suite.properties) {
      const run = await Effect.runPromise(runProperty({ property, adapter, seed: DEFAULT_SEED, runs: 40 }))
      expect(run.verdict, `${property.id}: ${JSON.stringify(run.verdict === "fail" ? run.counterexamples.map((c) => c.divergence.explanation) : run)}`).toBe("pass")
      for (const [id, count] of Object.entries(run.covered)) if (count > 0) covered.add(id)
    }
    expect([...covered].sort()).toEqual(cronRequirements.map((requirement) => requirement.id))
  }, 120_000)

  it("executes a scenario the same way twice", async () => {
    const property = suite.properties[1]!
    for (const scenario of fc.sample(property.scenario(adapter.capabilities), { seed: 7, numRuns: 5 })) {
      const first = await Effect.runPromise(executeScenario(property, adapter, scenario))
      const second = await Effect.runPromise(executeScenario(property, adapter, scenario))
      expect(second).toEqual(first)
    }
  }, 60_000)
})
