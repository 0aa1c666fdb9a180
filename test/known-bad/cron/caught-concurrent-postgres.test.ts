/**
 * The cron known-bads that only truly concurrent claims catch (`concurrent.ts`) are caught on postgres,
 * where the properties' races run two runners' transactions on separate sessions, through the same
 * caught-loop as the others (gate budget and seed, only requirements the bug breaks, short minimized
 * counterexamples that replay to the same divergence). The races' overlap is real: over the gate's
 * scenarios the server showed a runner's transaction waiting on the other's row lock
 * (`pg_blocking_pids`) and both open at once with their writes done (`pg_stat_activity`). Without
 * hook points too: a race then pauses right after BEGIN and before COMMIT at the storage boundary's own
 * points (`properties/cron/race.ts`). Until 2026-12-05 such an implementation's races ran one after the
 * other (0 lock waits and 0 overlaps over the gate's scenarios on postgres; now 9 and 28, as hooked).
 * Bootstraps run at once (`bootstrapAll`) pause at the same points; until 2026-12-05 (later) one
 * without hook points ran them at once without holding any open, while the coverage table counted
 * them as concurrent.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../../harness/Budget.ts"
import { propertySeed } from "../../../harness/Conformance.ts"
import { catchKnownBad, misattributed } from "../../../harness/knownBad.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { cronSuite } from "../../../properties/cron/index.ts"
import { concurrentKnownBadCrons } from "./concurrent.ts"
import { CRON_PROPERTY_ORDER } from "./expectations.ts"
import { expectCaughtByRace } from "../../support/expectCaughtByRace.ts"
import { usePostgresAdapter } from "../../support/nodeAdapters.ts"
import { hooklessOf } from "../../support/withoutHookPoints.ts"
import { shippedCron } from "../../../subjects/cron/index.ts"

/** Bound on a minimized counterexample of a concurrent known-bad (measured: 5 steps). */
const MAX_CONCURRENT_STEPS = 8
const TIMEOUT_MS = 600_000

const postgres = usePostgresAdapter()

describe("known-bad cron caught only by concurrent claims, on postgres", () => {
  it("each is caught, attributed to a requirement it breaks, with a short counterexample that replays", async () => {
    for (const bad of concurrentKnownBadCrons) {
      await expectCaughtByRace({ bad, suite: cronSuite(bad.implementation), adapter: postgres(), propertyOrder: CRON_PROPERTY_ORDER, maxSteps: MAX_CONCURRENT_STEPS, raceOperation: "race" })
    }
  }, TIMEOUT_MS)

  it("each is caught without hook points too: its races pause at the storage boundary's own points", async () => {
    for (const bad of concurrentKnownBadCrons) {
      const result = await Effect.runPromise(catchKnownBad({ suite: cronSuite(hooklessOf(bad.implementation)), adapter: postgres(), propertyOrder: CRON_PROPERTY_ORDER, stopAfterFailures: 1 }))
      expect(result.caught, bad.name).toBe(true)
      expect(misattributed(bad, result.counterexamples), bad.name).toEqual([])
    }
  }, TIMEOUT_MS)

  for (const [engine, implementation] of [["the shipped implementation", shippedCron], ["the shipped implementation without hook points", hooklessOf(shippedCron)]] as const) {
    it(`${engine}: races and bootstraps really overlap on the server: lock waits and open transactions seen`, () => expectRacesOverlap(cronSuite(implementation)), TIMEOUT_MS)
  }
})

/** Over the gate's scenarios of `suite`'s first property on postgres, races both waited on a row lock and overlapped with their writes done. */
const expectRacesOverlap = async (suite: ReturnType<typeof cronSuite>) => {
  const property = suite.properties[0]!
  const scenarios = fc.sample(property.scenario(postgres().capabilities), { numRuns: DEFAULT_RUNS, seed: propertySeed(DEFAULT_SEED, property.id, "postgres") })
  const evidence: Record<string, number> = {}
  const bootstrapsOpenTogether: Record<string, number> = {}
  for (const scenario of scenarios) {
    const trace = await Effect.runPromise(executeScenario(property, postgres(), scenario as never))
    expect(trace.divergence ?? null, JSON.stringify(trace.divergence)).toBeNull()
    for (const step of trace.steps.filter((entry) => entry.operation === "race" || entry.operation === "bootstrapAll")) {
      const state = step.implementationState as { readonly overlap?: unknown; readonly openTogether?: unknown } | undefined
      if (step.operation === "race") evidence[String(state?.overlap)] = (evidence[String(state?.overlap)] ?? 0) + 1
      else bootstrapsOpenTogether[String(state?.openTogether)] = (bootstrapsOpenTogether[String(state?.openTogether)] ?? 0) + 1
    }
  }
  console.log(`over ${scenarios.length} scenarios of ${property.id}: race evidence ${JSON.stringify(evidence)}, bootstraps open together ${JSON.stringify(bootstrapsOpenTogether)}`)
  expect(evidence.lockWait ?? 0).toBeGreaterThan(0)
  expect(evidence.overlapped ?? 0).toBeGreaterThan(0)
  // Bootstraps of two runners were held open at once (each paused right after BEGIN, the first held before COMMIT).
  expect(bootstrapsOpenTogether["2"] ?? 0).toBeGreaterThan(0)
}
