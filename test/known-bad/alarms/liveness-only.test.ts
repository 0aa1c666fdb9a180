/**
 * The liveness known-bad (`spurious-wake-guard`: dispatch selects nothing unless the platform alarm is
 * set and due) is invisible to every per-step comparison with the model and caught only by the
 * liveness phase, which delivers the platform alarm as the platform does (consuming it first):
 * - the model property (no liveness phase) passes its whole budget on it;
 * - the faults property fails, and every requirement it reports is a liveness requirement;
 * - each counterexample ends with the liveness step and replays to the same divergence.
 * And the shipped scheduler passes the liveness phase with both liveness requirements reached.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../../harness/Budget.ts"
import { propertySeed } from "../../../harness/Conformance.ts"
import { sameDivergence } from "../../../harness/knownBad.ts"
import { executeScenario, runProperty } from "../../../harness/Runner.ts"
import { makeSqliteAdapter } from "../../../adapters/sqlite/index.ts"
import { alarmsSuite } from "../../../properties/alarms/index.ts"
import { ALARMS_LIVENESS_REQUIREMENTS } from "../../../properties/alarms/livenessPhase.ts"
import type { AlarmsImplementation } from "../../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../../subjects/alarms/index.ts"
import { spuriousWakeGuard } from "./spurious-wake-guard.ts"
import { propertyById } from "../../../harness/Suite.ts"

const adapter = makeSqliteAdapter()

const run = (propertyId: string, implementation: AlarmsImplementation = spuriousWakeGuard.implementation) => {
  const property = propertyById(alarmsSuite(implementation), propertyId)
  return Effect.runPromise(runProperty({ property, adapter, seed: propertySeed(DEFAULT_SEED, property.id, adapter.name), runs: DEFAULT_RUNS }))
}

describe("a bug only the liveness phase can see", () => {
  it("passes the model property, which has no liveness phase", async () => {
    const result = await run("alarms/model")
    expect(result.verdict).toBe("pass")
  }, 120_000)

  it("fails the faults property on liveness requirements only, with replayable counterexamples", async () => {
    const result = await run("alarms/faults")
    expect(result.verdict).toBe("fail")
    if (result.verdict !== "fail") return
    const reported = result.counterexamples.map((counterexample) => counterexample.divergence.requirementId)
    expect(reported.length).toBeGreaterThan(0)
    for (const id of reported) expect(ALARMS_LIVENESS_REQUIREMENTS).toContain(id)
    for (const id of reported) expect(spuriousWakeGuard.breaks).toContain(id)
    const property = propertyById(alarmsSuite(spuriousWakeGuard.implementation), "alarms/faults")
    for (const counterexample of result.counterexamples) {
      expect(counterexample.trace.steps.at(-1)?.operation).toBe("liveness")
      const trace = await Effect.runPromise(executeScenario(property, adapter, counterexample.scenario))
      expect(sameDivergence(counterexample.divergence, trace.divergence)).toBe(true)
    }
  }, 180_000)

  it("the shipped scheduler passes the faults property with both liveness requirements reached", async () => {
    const result = await run("alarms/faults", shippedAlarms)
    expect(result.verdict).toBe("pass")
    for (const id of ALARMS_LIVENESS_REQUIREMENTS) expect(result.covered[id] ?? 0, id).toBeGreaterThan(0)
  }, 120_000)
})
