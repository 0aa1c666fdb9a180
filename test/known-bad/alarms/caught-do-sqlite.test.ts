/**
 * Every known-bad alarms implementation is caught on do-sqlite (real Durable Object SQLite in workerd,
 * through the Node host) at the gate's budget and seed: `DEFAULT_RUNS` scenarios per property,
 * `propertySeed(DEFAULT_SEED, property.id, "do-sqlite")`. The host bundles the known-bad suites into its
 * worker (`extraSuitesModule`), so each run executes inside the object bound to `known-bad/<id>`.
 *
 * Per bug the suite's properties are tried in order until one fails; the divergence must name an ALM
 * requirement, and re-executing the counterexample inside the object (`host.executeScenario`, replay)
 * must reproduce the same divergence. Runs to detect and counterexample length are printed as a table.
 */
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { makeDoSqliteAdapterDefinition } from "../../../hosts/do-sqlite/host.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../../harness/Budget.ts"
import { propertySeed } from "../../../harness/Conformance.ts"
import type { PropertyRun } from "../../../harness/RunResult.ts"
import { runProperty } from "../../../harness/Runner.ts"
import { alarmsSuite } from "../../../properties/alarms/index.ts"
import { requirementsForRules } from "../../../spec/alarms.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadAlarms } from "./index.ts"

const KNOWN_BAD_SUITES_MODULE = fileURLToPath(new URL("../../workerd/knownBadSuites.ts", import.meta.url))

let scope: Scope.Closeable
let adapter: StorageAdapter

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  const startedMs = performance.now()
  adapter = await Effect.runPromise(Scope.provide(scope)(makeDoSqliteAdapterDefinition({ extraSuitesModule: KNOWN_BAD_SUITES_MODULE }).make))
  console.info(`do-sqlite host with the known-bad suites ready in ${Math.round(performance.now() - startedMs)} ms`)
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("known-bad alarms on do-sqlite", () => {
  const caught = new Map<string, PropertyRun>()

  it("every known-bad implementation is caught with a divergence naming an ALM requirement", async () => {
    const table: Array<string> = []
    for (const bad of knownBadAlarms) {
      let result: PropertyRun | undefined
      let runsBefore = 0
      for (const property of alarmsSuite(bad.implementation).properties) {
        result = await Effect.runPromise(
          runProperty({ property, adapter, seed: propertySeed(DEFAULT_SEED, property.id, "do-sqlite"), runs: DEFAULT_RUNS })
        )
        expect.soft(result.error, `${bad.id} ${property.id}: infrastructure error`).toBeUndefined()
        if (result.verdict === "fail") break
        runsBefore += result.runsExecuted
      }
      const counterexample = result?.counterexample
      const related = new Set(requirementsForRules(bad.rules))
      table.push(
        `| ${bad.id} | ${result?.propertyId ?? "-"} | ${result?.verdict ?? "-"} | ${counterexample === undefined ? "-" : runsBefore + counterexample.runsToDetect} | ${counterexample?.trace.steps.length ?? "-"} | ${counterexample?.divergence.requirementId ?? "-"}${counterexample !== undefined && related.has(counterexample.divergence.requirementId) ? " (cites the bug's rule)" : ""} | ${result?.durationMs ?? "-"} ms |`
      )
      expect.soft(result?.verdict, `${bad.id} on do-sqlite: ${result?.error?.message ?? "not caught"}`).toBe("fail")
      if (counterexample === undefined || result === undefined) continue
      expect.soft(counterexample.divergence.requirementId, `${bad.id}: ${counterexample.divergence.explanation}`).toMatch(/^ALM-\d{3}$/)
      // The same bound on the minimized counterexample as on the in-process adapters.
      expect.soft(counterexample.trace.steps.length, `${bad.id}: counterexample length`).toBeLessThanOrEqual(EXPECTATIONS[bad.id]!.maxSteps)
      caught.set(bad.id, result)
    }
    console.info(["| bug | property | verdict | runs to detect | steps | requirement | time |", "|---|---|---|---|---|---|---|", ...table].join("\n"))
    expect(caught.size).toBe(knownBadAlarms.length)
  })

  it("re-executing each counterexample inside the object reproduces the same divergence", async () => {
    const host = adapter.host
    expect(host?.executeScenario).toBeDefined()
    expect(caught.size).toBe(knownBadAlarms.length)
    for (const bad of knownBadAlarms) {
      const counterexample = caught.get(bad.id)?.counterexample
      if (counterexample === undefined) continue
      const trace = await Effect.runPromise(host!.executeScenario!({
        propertyId: counterexample.propertyId,
        implementation: bad.implementation.name,
        scenario: counterexample.scenario
      }))
      expect(trace.divergence?.requirementId, bad.id).toBe(counterexample.divergence.requirementId)
      expect(trace.divergence?.stepIndex, bad.id).toBe(counterexample.divergence.stepIndex)
      expect(trace.divergence?.explanation, bad.id).toBe(counterexample.divergence.explanation)
    }
  })
})
