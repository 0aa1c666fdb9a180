/**
 * Faults reach an alarms implementation through the storage boundary only, so the verdicts hold for
 * implementations that are not ours:
 * - the shipped scheduler with every hook point removed is crashed at exactly the same steps as the
 *   shipped one, scenario by scenario, and agrees with the model throughout;
 * - a scheduler that catches every error and defect around its handler and `onFailure` (as upstream's
 *   does) passes the faults property at the gate's budget;
 * - a scheduler that keeps going after a crash (it dispatches uninterruptibly, so it turns the crash
 *   into a handler failure and writes the failure reschedule) is caught, with a counterexample whose
 *   witness step is a crash.
 * On sqlite at the gate's budget; pglite and postgres run the first check on the gate's scenarios that
 * draw a crash (at most `RUNS`), the second on a smaller sample, and the last at the gate's budget on
 * every adapter (the claim is that the gate catches it).
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { CRASH_PHASES, type StorageFaultPhase } from "../../harness/Faults.ts"
import { propertySeed } from "../../harness/Conformance.ts"
import type { ExecutionTrace, Json, PropertyDefinition } from "../../harness/Property.ts"
import { counterexamplesOf } from "../../harness/RunResult.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { catchingEverything, keepsGoingAfterCrash, withoutHookPoints } from "../subjects/alarmsVariants.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()

/**
 * Scenarios per adapter: the gate's budget on sqlite; on the Postgres engines (slower per scenario)
 * fewer, chosen among the gate's scenarios that draw a crash for the first check.
 */
const RUNS: Record<string, number> = { sqlite: DEFAULT_RUNS, pglite: 12, postgres: 30 }

/** True when a scenario draws a crash fault anywhere (a `phase` that ends the process). */
const drawsCrash = (value: Json): boolean => {
  if (value === null || typeof value !== "object") return false
  const phase = (value as { readonly phase?: Json }).phase
  if (typeof phase === "string" && CRASH_PHASES.includes(phase as StorageFaultPhase)) return true
  return Object.values(value).some(drawsCrash)
}

const faultsProperty = (implementation?: AlarmsImplementation): PropertyDefinition<any> =>
  propertyById(alarmsSuite(implementation), "alarms/faults")

/** Indices of the steps where the process crashed. */
const crashedSteps = (trace: ExecutionTrace): ReadonlyArray<number> =>
  trace.steps.filter((step) => (step.implementation as { readonly _tag?: unknown } | null)?._tag === "Crashed").map((step) => step.index)

const execute = (property: PropertyDefinition<any>, adapter: StorageAdapter, scenario: Json) =>
  Effect.runPromise(executeScenario(property, adapter, scenario))

describe.each(NODE_ADAPTER_NAMES)("storage-boundary faults against alarms implementations on %s", (name) => {
  it("crashes the shipped scheduler without hook points at the same steps as with them, and both agree with the model", async () => {
    const adapter = adapters[name]!
    const shipped = faultsProperty()
    const hookless = faultsProperty(withoutHookPoints)
    const drawn = fc.sample(shipped.scenario(adapter.capabilities), { seed: DEFAULT_SEED, numRuns: DEFAULT_RUNS }) as ReadonlyArray<Json>
    // The gate's own scenarios on sqlite; on the slower engines, the first of them that draw a crash.
    const scenarios = RUNS[name] === DEFAULT_RUNS ? drawn : drawn.filter(drawsCrash).slice(0, RUNS[name])
    let crashes = 0
    for (const scenario of scenarios) {
      const withHooks = await execute(shipped, adapter, scenario)
      const withoutHooks = await execute(hookless, adapter, scenario)
      expect(withHooks.divergence?.explanation ?? null).toBeNull()
      expect(withoutHooks.divergence?.explanation ?? null).toBeNull()
      expect(crashedSteps(withoutHooks)).toEqual(crashedSteps(withHooks))
      crashes += crashedSteps(withHooks).length
    }
    console.log(`${name}: ${crashes} crashes in ${scenarios.length} fault scenarios`)
    // Not vacuous: crashes were compared, at least one for every six scenarios. (A drawn crash is not
    // always reached: an earlier step can fail first, or the model voids it.)
    expect(crashes).toBeGreaterThanOrEqual(Math.ceil(scenarios.length / 6))
  })

  it("passes a scheduler that catches every error and defect around its handler and onFailure", async () => {
    const adapter = adapters[name]!
    const property = faultsProperty(catchingEverything)
    const result = await Effect.runPromise(
      runProperty({ property, adapter, seed: propertySeed(DEFAULT_SEED, property.id, name), runs: RUNS[name]! })
    )
    expect(result.verdict, JSON.stringify(counterexamplesOf(result).map((c) => c.divergence.explanation))).toBe("pass")
    expect(result.runsExecuted).toBe(RUNS[name])
  })

  it("catches a scheduler that keeps going after a crash, at a crash step", async () => {
    const adapter = adapters[name]!
    const property = faultsProperty(keepsGoingAfterCrash)
    const result = await Effect.runPromise(
      runProperty({ property, adapter, seed: propertySeed(DEFAULT_SEED, property.id, name), runs: DEFAULT_RUNS })
    )
    expect(result.verdict).toBe("fail")
    const witnesses = counterexamplesOf(result).map((counterexample) => counterexample.trace.steps[counterexample.divergence.stepIndex]!)
    expect(witnesses.some((step) => /crash inside/.test(step.fault ?? ""))).toBe(true)
  })
})
