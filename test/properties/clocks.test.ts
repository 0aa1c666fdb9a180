/**
 * The clocks suite as a whole: registered as a plugin, every requirement checked by some property,
 * the shipped engine passes every property on sqlite and reaches every requirement, the same seed
 * gives the same runs, and properties import nothing Node-only (they also run inside workerd).
 */
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { runProperty } from "../../harness/Runner.ts"
import { assertSuiteConsistent } from "../../harness/Suite.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import { subjectPlugins } from "../../properties/plugins.ts"
import { clockRequirements } from "../../spec/clocks.ts"

describe("clocks suite", () => {
  it("is registered and consistent, and every requirement is checked by a property", () => {
    expect(subjectPlugins.map((plugin) => plugin.name)).toContain("clocks")
    const suite = clocksSuite()
    assertSuiteConsistent(suite)
    const checked = new Set(suite.properties.flatMap((property) => property.requirements))
    expect(clockRequirements.filter((requirement) => !checked.has(requirement.id)).map((requirement) => requirement.id)).toEqual([])
    for (const requirement of clockRequirements) {
      expect(requirement.id).toMatch(/^CLK-\d{3}$/)
      expect(requirement.text).toMatch(/MUST/)
      // Every requirement since the subject landed, but upstream's span names (CLK-023, suite 0.7.0).
      expect(requirement.since).toBe(requirement.id === "CLK-023" ? "0.7.0" : "0.2.0")
    }
  })

  it("the shipped engine passes every property on sqlite, reaching every requirement, deterministically", async () => {
    const adapter = makeSqliteAdapter()
    const reached = new Set<string>()
    for (const property of clocksSuite().properties) {
      const first = await Effect.runPromise(runProperty({ property, adapter, seed: 11, runs: 30 }))
      const second = await Effect.runPromise(runProperty({ property, adapter, seed: 11, runs: 30 }))
      expect(first.verdict, property.id).toBe("pass")
      expect(second.covered, property.id).toEqual(first.covered)
      for (const [id, count] of Object.entries(first.covered)) if (count > 0) reached.add(id)
    }
    expect(clockRequirements.map((requirement) => requirement.id).filter((id) => !reached.has(id))).toEqual([])
  }, 120_000)

  it("properties, model and engine import nothing Node-only", () => {
    const files = [
      "properties/clocks/arbitraries.ts", "properties/clocks/checks.ts", "properties/clocks/execute.ts", "properties/clocks/index.ts",
      "properties/clocks/invariants.ts", "properties/clocks/journalHarness.ts", "properties/clocks/livenessPhase.ts", "properties/clocks/observe.ts",
      "properties/clocks/plugin.ts", "properties/clocks/race.ts", "properties/clocks/recordChecks.ts", "properties/clocks/session.ts", "subjects/clocks/make.ts", "subjects/clocks/journal.ts",
      "harness/Liveness.ts", "harness/TransactionProbe.ts"
    ]
    for (const file of files) expect(readFileSync(new URL(`../../${file}`, import.meta.url), "utf8"), file).not.toMatch(/from "node:|better-sqlite3/)
  })
})
