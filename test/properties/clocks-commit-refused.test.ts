/**
 * The clocks properties under a refused COMMIT (the storage boundary's `commitRefused` fault): the
 * state transaction's statements ran, then the database refused the commit, so rows and records roll
 * back together (C4), the caller sees the storage error and the process goes on with what it keeps in
 * memory. A refused schedule arms nothing (C8: arming follows the commit), so the clock never fires
 * until it is scheduled again; a refused fire is retried with backoff until it commits (C11). Each
 * scenario is executed by `clocks/faults` on every in-process adapter and must agree with the model
 * after every step.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { executeScenario } from "../../harness/Runner.ts"
import type { Json } from "../../harness/Property.ts"
import { type FaultedCommand, initialState, step } from "../../models/clocks/index.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faults = propertyById(clocksSuite(), "clocks/faults")
const refused = { transaction: 1, phase: "commitRefused" } as const

const SCENARIOS: ReadonlyArray<{ readonly name: string; readonly commands: ReadonlyArray<Json>; readonly refusedStep: number; readonly refusedResult: Json }> = [
  {
    name: "a refused schedule fails, arms nothing, and the same clock scheduled again fires once",
    commands: [
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000, fault: refused },
      { op: "advance", ms: 2_000 },
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000 }
    ],
    refusedStep: 0,
    refusedResult: { _tag: "Failure", error: "SqlError" }
  },
  {
    name: "a refused fire rolls back and is retried with backoff until it commits",
    commands: [
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000, fault: refused },
      { op: "advance", ms: 1_000 }
    ],
    refusedStep: 1,
    // The advance itself succeeds: the refused fire is retried inside the timer (C11).
    refusedResult: { _tag: "Success", value: null }
  }
]

describe("clocks when the database refuses a COMMIT", () => {
  it("the model rolls a refused fire back and retries it (C4, C11)", () => {
    const [schedule, refusedAdvance, nextAdvance] = SCENARIOS[1]!.commands as unknown as ReadonlyArray<FaultedCommand>
    const scheduled = step(initialState(), { command: schedule!, atMs: 0 })
    const refusedFire = step(scheduled.state, { command: refusedAdvance!, atMs: 0 })
    expect(refusedFire.transactions).toBeGreaterThanOrEqual(1)
    expect(refusedFire.reached).toContain("C4")
    expect(Object.values(refusedFire.state.clocks).map((clock) => clock.completedAtMs)).toEqual([null])
    const retried = step(refusedFire.state, { command: nextAdvance!, atMs: 1_000 })
    expect(retried.reached).toContain("C11")
    expect(Object.values(retried.state.clocks).map((clock) => clock.completedAtMs)).toEqual([1_100])
  })

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`agrees with the model after every step on ${adapterName}`, async () => {
      for (const scenario of SCENARIOS) {
        const trace = await Effect.runPromise(executeScenario(faults, adapters[adapterName]!, { commands: scenario.commands }))
        expect(trace.divergence, `${scenario.name}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
        expect(trace.steps).toHaveLength(scenario.commands.length)
        for (const step of trace.steps) expect(step.implementation, scenario.name).toEqual(step.model)
        const faulted = trace.steps[scenario.refusedStep]!
        expect(faulted.fault, scenario.name).toMatch(/^the database refuses to commit storage transaction 1 \(\w+\) \(serialization failure\)/)
        expect(faulted.model, scenario.name).toEqual(scenario.refusedResult)
      }
    }, 120_000)
  }
})
