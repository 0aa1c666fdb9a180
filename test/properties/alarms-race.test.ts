/**
 * `alarms/race` (`properties/alarms/race.ts`): an external schedule or cancel racing a
 * `processDueAlarms` batch at every between-transaction hook point, after it, or where a step schedule
 * puts it; the shipped scheduler agrees with the model everywhere, the racer really lands inside the
 * batch, and a known-bad acknowledgement or report is caught naming ALM-052.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import type { RaceScenario } from "../../properties/alarms/raceScenario.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { withoutHookPoints } from "../subjects/alarmsVariants.ts"
import { hooklessOf } from "../support/withoutHookPoints.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { knownBadAlarms } from "../known-bad/alarms/index.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { propertySeed } from "../../harness/Conformance.ts"
import { propertyById } from "../../harness/Suite.ts"

const raceOf = (implementation?: AlarmsImplementation) => propertyById(alarmsSuite(implementation), "alarms/race")

describe("alarms/race on sqlite", () => {
  it("the shipped scheduler agrees with the model wherever the racer lands", async () => {
    const adapter = makeSqliteAdapter()
    const scenarios = fc.sample(raceOf().scenario(adapter.capabilities), { numRuns: 120, seed: 11 }) as ReadonlyArray<RaceScenario>
    const landings = new Set<string>()
    for (const scenario of scenarios) {
      const trace = await Effect.runPromise(executeScenario(raceOf(), adapter, scenario as unknown as Json))
      expect(trace.divergence, `${JSON.stringify(scenario)}: ${trace.divergence?.explanation}`).toBeNull()
      const race = trace.steps.find((step) => step.operation === "race")!
      landings.add(String((race.implementation as { readonly ranAt: Json }).ranAt))
    }
    for (const point of ["afterSelectDue", "beforeHandler", "afterHandler", "afterAcknowledge", "beforeFailureWrite", "afterFailureCommit", "after"]) expect(landings).toContain(point)
  }, 120_000)
})

describe("alarms/race without hook points", () => {
  it("a scheduler without hook points passes, and the racer still lands inside handler passes (the harness's own handler points)", async () => {
    const adapter = makeSqliteAdapter()
    const scenarios = fc.sample(raceOf().scenario(adapter.capabilities), { numRuns: 40, seed: 12 }) as ReadonlyArray<RaceScenario>
    const landings = new Set<string>()
    for (const scenario of scenarios) {
      const trace = await Effect.runPromise(executeScenario(raceOf(withoutHookPoints), adapter, scenario as unknown as Json))
      expect(trace.divergence, `${JSON.stringify(scenario)}: ${trace.divergence?.explanation}`).toBeNull()
      const race = trace.steps.find((step) => step.operation === "race")!
      landings.add(String((race.implementation as { readonly ranAt: Json }).ranAt))
    }
    expect([...landings].sort()).toEqual(["after", "afterHandler", "before", "beforeHandler"])
  }, 60_000)

  it("an acknowledgement that ignores the racer's write is caught without hook points too", async () => {
    const bad = knownBadAlarms.find((entry) => entry.name === "ack-ignores-external-write")!
    await expectCaughtByRace({ ...bad, implementation: hooklessOf(bad.implementation) }, makeSqliteAdapter())
  }, 120_000)
})

/** `bad` is caught by `alarms/race` on `adapter`, each counterexample naming a requirement it breaks in at most 5 steps. */
const expectCaughtByRace = async (bad: (typeof knownBadAlarms)[number], adapter: StorageAdapter) => {
  const result = await Effect.runPromise(catchKnownBad({ suite: alarmsSuite(bad.implementation), adapter, propertyOrder: ["alarms/race"], stopAfterFailures: 1 }))
  expect(result.caught, result.run.verdict).toBe(true)
  for (const counterexample of result.counterexamples) {
    expect(bad.breaks, counterexample.divergence.explanation).toContain(counterexample.divergence.requirementId)
    expect(counterexample.trace.steps.length).toBeLessThanOrEqual(5)
  }
}

describe("alarms/race catches the race known-bads on sqlite", () => {
  for (const bad of knownBadAlarms.filter((entry) => ["report-without-reread", "ack-ignores-external-write"].includes(entry.name))) {
    it(`${bad.name}: a minimized counterexample naming a requirement it breaks`, () => expectCaughtByRace(bad, makeSqliteAdapter()), 120_000)
  }
})

const postgres = usePostgresAdapter()

/** `alarms/race` of `implementation` passes on postgres at the gate's budget, crediting both race requirements. */
const expectPassesCrediting = async (implementation?: AlarmsImplementation) => {
  const property = raceOf(implementation)
  const run = await Effect.runPromise(runProperty({ property, adapter: postgres(), seed: propertySeed(DEFAULT_SEED, property.id, postgres().name), runs: DEFAULT_RUNS }))
  expect(run.verdict, JSON.stringify(run).slice(0, 2000)).toBe("pass")
  expect(run.covered["ALM-053"] ?? 0).toBeGreaterThan(0)
  expect(run.covered["ALM-052"] ?? 0).toBeGreaterThan(0)
}

describe("alarms/race on postgres", () => {
  it("passes at the gate's budget with truly concurrent transactions seen waiting on the transaction lock", () => expectPassesCrediting(), 120_000)

  it("a scheduler without the transaction lock is caught naming ALM-053", async () => {
    await expectCaughtByRace(knownBadAlarms.find((entry) => entry.name === "no-transaction-lock")!, postgres())
  }, 120_000)

  it("without hook points, the first transaction is held at the boundary's point before COMMIT: the race passes and credits ALM-052 and ALM-053", () => expectPassesCrediting(withoutHookPoints), 120_000)

  it("without hook points, a scheduler without the transaction lock is still caught naming ALM-053", async () => {
    const bad = knownBadAlarms.find((entry) => entry.name === "no-transaction-lock")!
    await expectCaughtByRace({ ...bad, implementation: hooklessOf(bad.implementation) }, postgres())
  }, 120_000)
})
