/**
 * Executing the same scenario twice on fresh databases gives the same trace, step for step (the
 * properties read no wall clock and no unseeded randomness), so counterexamples replay exactly.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter, sqliteCapabilities } from "../../adapters/sqlite/index.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { adapterProperties } from "../../properties/adapter/index.ts"

describe("adapter properties are deterministic", () => {
  it("same scenario, same trace", async () => {
    const adapter = makeSqliteAdapter()
    for (const property of adapterProperties.filter((p) => p.needs.length === 0)) {
      for (const scenario of fc.sample(property.scenario(sqliteCapabilities), { numRuns: 5, seed: 3 })) {
        const first = await Effect.runPromise(executeScenario(property, adapter, scenario))
        const second = await Effect.runPromise(executeScenario(property, adapter, scenario))
        expect(second, property.id).toEqual(first)
        expect(first.steps.length).toBeGreaterThan(0)
      }
    }
  })
})
