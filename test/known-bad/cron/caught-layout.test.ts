/**
 * The cron layout known-bad that only Postgres dialects show (`layout.ts`): `ambiguous` declared INTEGER,
 * as the shipped runtime had it until suite 0.12.0. On pglite and postgres it is caught on the first
 * step of the first scenario, attributed to CRN-017, with the database's refusal in the witness; the
 * counterexample replays. On sqlite, which takes `false` in any column, the same scenario passes: there
 * the layout is upstream's in every way upstream's statements can tell.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { catchKnownBad, misattributed, sameDivergence } from "../../../harness/knownBad.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { cronSuite } from "../../../properties/cron/index.ts"
import { useNodeAdapters } from "../../support/nodeAdapters.ts"
import { CRON_PROPERTY_ORDER } from "./expectations.ts"
import { integerAmbiguousColumn, postgresLayoutKnownBadCrons } from "./layout.ts"
import { propertyById } from "../../../harness/Suite.ts"

const TIMEOUT_MS = 300_000

const adapters = useNodeAdapters()

describe("cron layout known-bads caught only on Postgres dialects", () => {
  for (const adapterName of ["pglite", "postgres"]) {
    it(`each is caught on ${adapterName} at the first step, naming CRN-017 and the refusal, and replays`, async () => {
      for (const bad of postgresLayoutKnownBadCrons) {
        const suite = cronSuite(bad.implementation)
        const result = await Effect.runPromise(catchKnownBad({ suite, adapter: adapters[adapterName]!, propertyOrder: CRON_PROPERTY_ORDER, stopAfterFailures: 1 }))
        expect(result.caught, bad.name).toBe(true)
        expect(result.runsToDetect, bad.name).toBe(1)
        expect(misattributed(bad, result.counterexamples), bad.name).toEqual([])
        for (const counterexample of result.counterexamples) {
          expect(counterexample.trace.steps.length).toBe(1)
          expect(JSON.stringify(counterexample.divergence.actual)).toContain("boolean")
          const property = propertyById(suite, counterexample.propertyId)
          const again = await Effect.runPromise(executeScenario(property, adapters[adapterName]!, counterexample.scenario))
          expect(sameDivergence(counterexample.divergence, again.divergence), bad.name).toBe(true)
        }
      }
    }, TIMEOUT_MS)
  }

  it("passes on sqlite, which takes `false` in an INTEGER column", async () => {
    const suite = cronSuite(integerAmbiguousColumn.implementation)
    const caught = await Effect.runPromise(catchKnownBad({ suite, adapter: adapters.pglite!, propertyOrder: CRON_PROPERTY_ORDER, stopAfterFailures: 1 }))
    const scenario = caught.counterexamples[0]!.scenario
    const property = propertyById(suite, caught.counterexamples[0]!.propertyId)
    const onSqlite = await Effect.runPromise(executeScenario(property, adapters.sqlite!, scenario))
    expect(onSqlite.divergence).toBeNull()
    expect(onSqlite.covered).toContain("CRN-017")
  }, TIMEOUT_MS)
})
