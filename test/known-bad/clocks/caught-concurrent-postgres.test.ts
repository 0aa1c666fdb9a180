/**
 * The clocks known-bads that only overlapping transactions show (two processes scheduling one clock at
 * once, `properties/clocks/scheduleRace.ts`) are caught on a Postgres server, where the second
 * schedule runs into the first's open transaction on its own session and is seen waiting on its lock.
 * On the embedded backends the two schedules run one after the other, and these bugs are right there.
 * Caught at the gate's budget and seeds, under only the requirements each bug breaks, with a short
 * counterexample whose last step is the scheduling race, and re-executing it reproduces the divergence.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { catchKnownBad, misattributed, sameDivergence } from "../../../harness/knownBad.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { clocksSuite } from "../../../properties/clocks/index.ts"
import { usePostgresAdapter } from "../../support/nodeAdapters.ts"
import { scheduleCheckThenUpsert } from "./schedule-check-then-upsert.ts"

/** Known-bads only overlapping scheduling transactions show. */
const overlapOnlyKnownBadClocks = [scheduleCheckThenUpsert]
/** Bound on a minimized counterexample (measured: 2 steps, a scheduling race and the advance that reads its timers). */
const MAX_STEPS = 4
const TIMEOUT_MS = 600_000

const postgres = usePostgresAdapter()

describe("known-bad clocks that only overlapping schedules show, on postgres", () => {
  it("each is caught, attributed to a requirement it breaks, with a short counterexample that replays", async () => {
    for (const bad of overlapOnlyKnownBadClocks) {
      const suite = clocksSuite(bad.implementation)
      const result = await Effect.runPromise(catchKnownBad({ suite, adapter: postgres(), propertyOrder: ["clocks/concurrent"], stopAfterFailures: 1 }))
      expect(result.caught, bad.name).toBe(true)
      expect(misattributed(bad, result.counterexamples), bad.name).toEqual([])
      for (const counterexample of result.counterexamples) {
        expect(counterexample.trace.steps.length, JSON.stringify(counterexample.scenario)).toBeLessThanOrEqual(MAX_STEPS)
        expect(counterexample.trace.steps.some((step) => step.operation === "scheduleRace"), bad.name).toBe(true)
        const property = suite.properties.find((entry) => entry.id === counterexample.propertyId)!
        const again = await Effect.runPromise(executeScenario(property, postgres(), counterexample.scenario))
        expect(sameDivergence(counterexample.divergence, again.divergence), bad.name).toBe(true)
      }
    }
  }, TIMEOUT_MS)
})
