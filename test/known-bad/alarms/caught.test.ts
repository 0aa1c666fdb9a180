/**
 * Every known-bad alarms implementation is caught by the alarms properties on sqlite, pglite and
 * postgres at the gate's budget and seeds (DEFAULT_RUNS scenarios, `propertySeed(DEFAULT_SEED, ...)`):
 * the verdict is `fail`, the divergence names a requirement related to the bug, the minimized
 * counterexample is short (a per-bug bound on its steps, measured and set a little above), and
 * re-executing the counterexample's scenario reproduces the same divergence (requirement and step).
 *
 * Each bug is checked with its properties in a stated order until one fails; the runs-to-detect and
 * counterexample lengths are printed per adapter as a Markdown table. Measured on 2 cores (sqlite,
 * pglite, postgres): about 4 s, 25 s and 40 s.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../../harness/Budget.ts"
import { propertySeed } from "../../../harness/Conformance.ts"
import type { PropertyRun } from "../../../harness/RunResult.ts"
import { executeScenario, runProperty } from "../../../harness/Runner.ts"
import { alarmsSuite } from "../../../properties/alarms/index.ts"
import { requirementsForRules } from "../../../spec/alarms.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadAlarms } from "./index.ts"
import { useNodeAdapters } from "../../support/nodeAdapters.ts"


const adapters = useNodeAdapters()

it("every known-bad implementation has an expectation", () => {
  expect(knownBadAlarms.map((bad) => bad.id).sort()).toEqual(Object.keys(EXPECTATIONS).sort())
})

for (const adapterName of ["sqlite", "pglite", "postgres"] as const) {
  describe(`known-bad alarms on ${adapterName}`, () => {
    const caught = new Map<string, PropertyRun>()

    it("every known-bad implementation is caught with a short counterexample naming a related requirement", async () => {
      const adapter = adapters[adapterName]!
      const table: Array<string> = []
      for (const bad of knownBadAlarms) {
        const expectation = EXPECTATIONS[bad.id]!
        const suite = alarmsSuite(bad.implementation)
        let result: PropertyRun | undefined
        let runsSpent = 0
        for (const propertyId of expectation.properties) {
          const property = suite.properties.find((entry) => entry.id === propertyId)!
          result = await Effect.runPromise(
            runProperty({ property, adapter, seed: propertySeed(DEFAULT_SEED, property.id, adapter.name), runs: DEFAULT_RUNS })
          )
          runsSpent += result.counterexample?.runsToDetect ?? result.runsExecuted
          if (result.verdict !== "pass") break
        }
        if (result === undefined) throw new Error(`no property for ${bad.id}`)
        const counterexample = result.counterexample
        table.push(
          `| ${bad.id} | ${adapterName} | ${result.propertyId} | ${result.verdict} | ${runsSpent} | ${counterexample?.trace.steps.length ?? "-"} | ${counterexample?.divergence.requirementId ?? "-"} | ${result.durationMs} ms |`
        )
        expect.soft(result.verdict, `${bad.id} on ${adapterName}: ${result.error?.message ?? "not caught"}`).toBe("fail")
        if (counterexample === undefined) continue
        const related = new Set([...requirementsForRules(bad.rules), ...expectation.alsoRelated])
        expect.soft([...related], `${bad.id}: ${counterexample.divergence.explanation}`).toContain(counterexample.divergence.requirementId)
        expect.soft(counterexample.trace.steps.length, `${bad.id}: ${JSON.stringify(counterexample.scenario)}`).toBeLessThanOrEqual(expectation.maxSteps)
        caught.set(bad.id, result)
      }
      console.log(["| bug | adapter | caught by | verdict | runs to detect (all properties tried) | steps | requirement | time of the catching property |", ...table].join("\n"))
    })

    it("re-executing each counterexample reproduces the same divergence", async () => {
      const adapter = adapters[adapterName]!
      expect(caught.size).toBe(knownBadAlarms.length)
      for (const bad of knownBadAlarms) {
        const counterexample = caught.get(bad.id)?.counterexample
        if (counterexample === undefined) continue
        const property = alarmsSuite(bad.implementation).properties.find((entry) => entry.id === counterexample.propertyId)!
        const trace = await Effect.runPromise(executeScenario(property, adapter, counterexample.scenario))
        expect(trace.divergence?.requirementId, bad.id).toBe(counterexample.divergence.requirementId)
        expect(trace.divergence?.stepIndex, bad.id).toBe(counterexample.divergence.stepIndex)
        expect(trace.divergence?.explanation).toBe(counterexample.divergence.explanation)
      }
    })
  })
}
