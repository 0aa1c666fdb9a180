/**
 * Every known-bad pool is caught by the pool properties on postgres at the gate's budget and seeds
 * (`DEFAULT_RUNS` scenarios, `propertySeed(DEFAULT_SEED, ...)`), through the known-bad kit's
 * caught-loop, stopping at the first failed requirement (postgres is a slow adapter, as in the alarms
 * test); every reported requirement is among those the bug breaks, every minimized counterexample is
 * short and re-executing it reproduces the same divergence. On sqlite (no independent connections)
 * the bugs cannot occur: the properties are not applicable. Runs to detect and counterexample
 * lengths are printed as a Markdown table.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type CatchResult, catchKnownBad, misattributed, sameDivergence } from "../../../harness/knownBad.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { poolSuite } from "../../../properties/pool/index.ts"
import { useNodeAdapters } from "../../support/nodeAdapters.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadPools } from "./index.ts"
import { propertyById } from "../../../harness/Suite.ts"

const adapters = useNodeAdapters()

/** Wall-clock limit of the caught-loop over all known-bads (measured on 2 cores: about 70 s). */
const CAUGHT_TIMEOUT_MS = 300_000

it("every known-bad pool has an expectation", () => {
  expect(knownBadPools.map((bad) => bad.name).sort()).toEqual(Object.keys(EXPECTATIONS).sort())
})

describe("known-bad pools on postgres", () => {
  const caught = new Map<string, CatchResult>()

  it("every known-bad pool is caught, reporting only requirements its bug breaks, with short counterexamples", async () => {
    const table: Array<string> = []
    for (const bad of knownBadPools) {
      const result = await Effect.runPromise(catchKnownBad({ suite: poolSuite(bad.implementation), adapter: adapters.postgres!, stopAfterFailures: 1 }))
      const error = result.run.verdict === "error" ? result.run.error.message : "not caught"
      expect.soft(result.caught, `${bad.name}: ${error}`).toBe(true)
      for (const counterexample of result.counterexamples) {
        const id = counterexample.divergence.requirementId
        table.push(`| ${bad.name} | ${result.run.propertyId} | ${result.runsToDetect} | ${counterexample.trace.steps.length} | ${id} | ${result.durationMs} ms |`)
        expect.soft(counterexample.trace.steps.length, `${bad.name} ${id}: ${JSON.stringify(counterexample.scenario)}`)
          .toBeLessThanOrEqual(EXPECTATIONS[bad.name]!.maxSteps)
      }
      expect.soft(misattributed(bad, result.counterexamples), bad.name).toEqual([])
      if (result.caught) caught.set(bad.name, result)
    }
    console.log(["| bug | caught by | runs to detect | steps | requirement | time |", "|---|---|---|---|---|---|", ...table].join("\n"))
  }, CAUGHT_TIMEOUT_MS)

  it("re-executing each counterexample reproduces the same divergence", async () => {
    expect(caught.size).toBe(knownBadPools.length)
    for (const bad of knownBadPools) {
      const suite = poolSuite(bad.implementation)
      for (const counterexample of caught.get(bad.name)?.counterexamples ?? []) {
        const property = propertyById(suite, counterexample.propertyId)
        const trace = await Effect.runPromise(executeScenario(property, adapters.postgres!, counterexample.scenario))
        expect.soft(sameDivergence(counterexample.divergence, trace.divergence), `${bad.name} ${counterexample.divergence.requirementId}`).toBe(true)
      }
    }
  }, CAUGHT_TIMEOUT_MS)
})

it("on sqlite the known-bads cannot occur: the pool properties are not applicable", async () => {
  for (const bad of knownBadPools) {
    const result = await Effect.runPromise(catchKnownBad({ suite: poolSuite(bad.implementation), adapter: adapters.sqlite!, runs: 2 }))
    expect(result.caught).toBe(false)
    expect(result.run.verdict).toBe("not-applicable")
  }
})
