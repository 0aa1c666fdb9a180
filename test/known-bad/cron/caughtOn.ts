/**
 * The caught-loop test of the known-bad cron implementations on one in-process adapter, shared by
 * `caught-sqlite.test.ts`, `caught-pglite.test.ts` and `caught-postgres.test.ts` (one file per adapter
 * keeps each file's time bounded). At the gate's budget and seed (`DEFAULT_RUNS` scenarios,
 * `propertySeed(DEFAULT_SEED, ...)`), through the kit's caught-loop (`harness/knownBad.ts`, properties
 * tried in order, stopping at each property's first failed requirement):
 * - the verdict is `fail`;
 * - every requirement reported is among those the bug breaks (`breaks`);
 * - every minimized counterexample is short (`MAX_STEPS`);
 * - re-executing each counterexample's scenario reproduces the same divergence.
 * Runs to detect and counterexample lengths are printed as a Markdown table.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { type CatchResult, catchKnownBad, misattributed, sameDivergence } from "../../../harness/knownBad.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { cronSuite } from "../../../properties/cron/index.ts"
import { CRON_PROPERTY_ORDER, MAX_STEPS } from "./expectations.ts"
import { knownBadCrons } from "./index.ts"
import { propertyById } from "../../../harness/Suite.ts"

/** Wall-clock limit of one adapter's caught-loop over all known-bads (measured on a loaded 2-core machine, then doubled). */
const CAUGHT_TIMEOUT_MS = 900_000

/** Registers the caught-loop tests of every known-bad cron implementation on the adapter `adapterOf()` returns. */
export const describeCaughtOn = (adapterName: string, adapterOf: () => StorageAdapter): void => {
  describe(`known-bad cron on ${adapterName}`, () => {
    const caught = new Map<string, CatchResult>()

    it("every known-bad implementation is caught, reporting only requirements its bug breaks, with short counterexamples", async () => {
      const table: Array<string> = []
      for (const bad of knownBadCrons) {
        const result = await Effect.runPromise(catchKnownBad({ suite: cronSuite(bad.implementation), adapter: adapterOf(), propertyOrder: CRON_PROPERTY_ORDER, stopAfterFailures: 1 }))
        const error = result.run.verdict === "error" ? result.run.error.message : "not caught"
        expect.soft(result.caught, `${bad.name} on ${adapterName}: ${error}`).toBe(true)
        table.push(...result.counterexamples.map((counterexample) =>
          `| ${bad.name} | ${adapterName} | ${result.run.propertyId} | ${result.runsToDetect} | ${counterexample.trace.steps.length} | ${counterexample.divergence.requirementId} | ${result.durationMs} ms |`))
        if (!result.caught) continue
        caught.set(bad.name, result)
        expect.soft(misattributed(bad, result.counterexamples), bad.name).toEqual([])
        for (const counterexample of result.counterexamples) {
          expect.soft(counterexample.trace.steps.length, `${bad.name}: ${JSON.stringify(counterexample.scenario)}`).toBeLessThanOrEqual(MAX_STEPS[bad.name]!)
        }
      }
      console.log(["| bug | adapter | caught by | runs to detect | steps | requirement | time |", "|---|---|---|---|---|---|---|", ...table].join("\n"))
    }, CAUGHT_TIMEOUT_MS)

    it("re-executing each counterexample reproduces the same divergence", async () => {
      expect(caught.size).toBe(knownBadCrons.length)
      for (const bad of knownBadCrons) {
        const suite = cronSuite(bad.implementation)
        for (const counterexample of caught.get(bad.name)?.counterexamples ?? []) {
          const property = propertyById(suite, counterexample.propertyId)
          const trace = await Effect.runPromise(executeScenario(property, adapterOf(), counterexample.scenario))
          expect.soft(sameDivergence(counterexample.divergence, trace.divergence), `${bad.name} ${counterexample.divergence.requirementId}`).toBe(true)
        }
      }
    }, CAUGHT_TIMEOUT_MS)
  })
}
