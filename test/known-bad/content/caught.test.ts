/**
 * Every known-bad content implementation is caught by the content properties on sqlite, pglite and
 * postgres at the gate's budget and seeds (`DEFAULT_RUNS` scenarios, `propertySeed(DEFAULT_SEED, ...)`),
 * through the known-bad kit's caught-loop (properties tried in the stated order until one fails):
 * - the verdict is `fail`;
 * - every requirement the failing run reports is among those the bug breaks (`breaks`);
 * - every minimized counterexample is short (a per-bug bound on its steps);
 * - re-executing each counterexample's scenario reproduces the same divergence.
 * Runs to detect and counterexample lengths are printed per adapter as a Markdown table.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type CatchResult, catchKnownBad, misattributed, sameDivergence } from "../../../harness/knownBad.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { contentSuite } from "../../../properties/content/index.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../../support/nodeAdapters.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadContents } from "./index.ts"
import { propertyById } from "../../../harness/Suite.ts"

const adapters = useNodeAdapters()

/** Wall-clock limit of one adapter's caught-loop over all known-bads (sqlite about 30 s on 2 cores). */
const CAUGHT_TIMEOUT_MS = 600_000

it("every known-bad content implementation has an expectation", () => {
  expect(knownBadContents.map((bad) => bad.name).sort()).toEqual(Object.keys(EXPECTATIONS).sort())
})

for (const adapterName of NODE_ADAPTER_NAMES) {
  describe(`known-bad content on ${adapterName}`, () => {
    const caught = new Map<string, CatchResult>()

    it("every known-bad implementation is caught, reporting only requirements its bug breaks, with short counterexamples", async () => {
      const adapter = adapters[adapterName]!
      const table: Array<string> = []
      for (const bad of knownBadContents) {
        const expectation = EXPECTATIONS[bad.name]!
        const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(bad.implementation), adapter, propertyOrder: expectation.properties, stopAfterFailures: 1 }))
        const error = result.run.verdict === "error" ? result.run.error.message : "not caught"
        expect.soft(result.caught, `${bad.name} on ${adapterName}: ${error}`).toBe(true)
        for (const counterexample of result.counterexamples) {
          const id = counterexample.divergence.requirementId
          table.push(`| ${bad.name} | ${adapterName} | ${result.run.propertyId} | ${result.runsToDetect} | ${counterexample.trace.steps.length} | ${id} | ${result.durationMs} ms |`)
          expect.soft(counterexample.trace.steps.length, `${bad.name} ${id}: ${JSON.stringify(counterexample.scenario)}`).toBeLessThanOrEqual(expectation.maxSteps)
        }
        for (const mismatch of misattributed(bad, result.counterexamples)) {
          expect.soft(bad.breaks, `${bad.name} reported ${mismatch.reported}: ${mismatch.explanation}`).toContain(mismatch.reported)
        }
        if (result.caught) caught.set(bad.name, result)
      }
      console.log(["| bug | adapter | caught by | runs to detect | steps | requirement | time |", "|---|---|---|---|---|---|---|", ...table].join("\n"))
    }, CAUGHT_TIMEOUT_MS)

    it("re-executing each counterexample reproduces the same divergence", async () => {
      const adapter = adapters[adapterName]!
      expect(caught.size).toBe(knownBadContents.length)
      for (const bad of knownBadContents) {
        const suite = contentSuite(bad.implementation)
        for (const counterexample of caught.get(bad.name)?.counterexamples ?? []) {
          const property = propertyById(suite, counterexample.propertyId)
          const trace = await Effect.runPromise(executeScenario(property, adapter, counterexample.scenario))
          expect.soft(sameDivergence(counterexample.divergence, trace.divergence), `${bad.name} ${counterexample.divergence.requirementId}`).toBe(true)
        }
      }
    }, CAUGHT_TIMEOUT_MS)
  })
}
