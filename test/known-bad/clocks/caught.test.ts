/**
 * Every known-bad clocks implementation is caught by the clocks properties on sqlite, pglite and
 * postgres at the gate's budget and seeds, through the known-bad kit's caught-loop:
 * - the verdict is `fail`;
 * - every reported requirement is among those the bug breaks (`breaks`); for the liveness bugs (B1b,
 *   B1c, B1d) every reported requirement is the liveness requirement named in `reportedUnder`, so they
 *   are caught by the liveness check and not by accident;
 * - every minimized counterexample is short, and re-executing it reproduces the same divergence.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type CatchResult, catchKnownBad, sameDivergence } from "../../../harness/knownBad.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { clocksSuite } from "../../../properties/clocks/index.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../../support/nodeAdapters.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadClocks } from "./index.ts"
import { propertyById } from "../../../harness/Suite.ts"

const adapters = useNodeAdapters()

/** Wall-clock limit of one adapter's caught-loop over all known-bads. */
const CAUGHT_TIMEOUT_MS = 600_000

it("every known-bad implementation has an expectation", () => {
  expect(knownBadClocks.map((bad) => bad.name).sort()).toEqual(Object.keys(EXPECTATIONS).sort())
})

for (const adapterName of NODE_ADAPTER_NAMES) {
  describe(`known-bad clocks on ${adapterName}`, () => {
    const caught = new Map<string, CatchResult>()

    it("every known-bad implementation is caught, reporting only requirements its bug breaks, with short counterexamples", async () => {
      const adapter = adapters[adapterName]!
      const table: Array<string> = []
      for (const bad of knownBadClocks) {
        const expectation = EXPECTATIONS[bad.name]!
        const result = await Effect.runPromise(catchKnownBad({
          suite: clocksSuite(bad.implementation),
          adapter,
          propertyOrder: expectation.properties,
          ...(adapterName === "sqlite" ? {} : { stopAfterFailures: 1 })
        }))
        const error = result.run.verdict === "error" ? result.run.error.message : "not caught"
        expect.soft(result.caught, `${bad.name} on ${adapterName}: ${error}`).toBe(true)
        if (!result.caught) continue
        caught.set(bad.name, result)
        for (const counterexample of result.counterexamples) {
          const id = counterexample.divergence.requirementId
          table.push(`| ${bad.name} | ${adapterName} | ${result.run.propertyId} | ${result.runsToDetect} | ${counterexample.trace.steps.length} | ${id} | ${result.durationMs} ms |`)
          expect.soft(bad.breaks, `${bad.name} reported ${id}: ${counterexample.divergence.explanation}`).toContain(id)
          if (expectation.reportedUnder !== undefined) {
            expect.soft(expectation.reportedUnder, `${bad.name} must fail liveness, reported ${id}: ${counterexample.divergence.explanation}`).toContain(id)
          }
          expect.soft(counterexample.trace.steps.length, `${bad.name} ${id}: ${JSON.stringify(counterexample.scenario)}`).toBeLessThanOrEqual(expectation.maxSteps)
        }
      }
      console.log(["| bug | adapter | caught by | runs to detect | steps | requirement | time |", "|---|---|---|---|---|---|---|", ...table].join("\n"))
    }, CAUGHT_TIMEOUT_MS)

    it("re-executing each counterexample reproduces the same divergence", async () => {
      const adapter = adapters[adapterName]!
      expect(caught.size).toBe(knownBadClocks.length)
      for (const bad of knownBadClocks) {
        const suite = clocksSuite(bad.implementation)
        for (const counterexample of caught.get(bad.name)?.counterexamples ?? []) {
          const property = propertyById(suite, counterexample.propertyId)
          const trace = await Effect.runPromise(executeScenario(property, adapter, counterexample.scenario))
          expect.soft(sameDivergence(counterexample.divergence, trace.divergence), `${bad.name} ${counterexample.divergence.requirementId}`).toBe(true)
        }
      }
    }, CAUGHT_TIMEOUT_MS)
  })
}
