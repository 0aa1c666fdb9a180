/**
 * Storage faults on every fire path of the clocks properties (issue 11, deliverable 4): the generated
 * fault plan strikes the transactions of a restart's recovery (its registration sweep, including the
 * fire of a clock it finds due, between that fire's commit and its resume), of the second process's
 * sweeps, and of process A's own sweeps. Each scenario is executed by `clocks/faults` on every
 * in-process adapter and must agree with the model after every step, with the crash or failure the
 * model predicts.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { executeScenario } from "../../harness/Runner.ts"
import type { Json } from "../../harness/Property.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faults = propertyById(clocksSuite(), "clocks/faults")

/** A clock whose first fire fails (its first durable emit), so it is pending and due when the next command runs. */
const dueClock: ReadonlyArray<Json> = [
  { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
  { op: "advance", ms: 1_000, journalFault: 1 }
]

const SCENARIOS: ReadonlyArray<{ readonly name: string; readonly commands: ReadonlyArray<Json>; readonly result: Json }> = [
  {
    name: "a restart's recovery fires the due clock and dies between that fire's commit and its resume",
    commands: [...dueClock, { op: "restart", fault: { transaction: 2, phase: "afterCommit" } }],
    result: { _tag: "Crashed", transaction: 2, phase: "afterCommit" }
  },
  {
    name: "a restart's recovery dies inside its first transaction",
    commands: [...dueClock, { op: "restart", fault: { transaction: 1, phase: "inside" } }],
    result: { _tag: "Crashed", transaction: 1, phase: "inside" }
  },
  {
    name: "the second process's sweep fires the due clock and dies inside that fire's transaction",
    commands: [...dueClock, { op: "sweep", process: "B", withFlow: false, fault: { transaction: 2, phase: "inside" } }],
    result: { _tag: "Crashed", transaction: 2, phase: "inside" }
  },
  {
    name: "the second process's sweep loses the reply of its fire's commit, and its first durable emit fails on retry",
    commands: [...dueClock, { op: "sweep", process: "B", withFlow: true, fault: { transaction: 2, phase: "lostReply" } }],
    result: { _tag: "Success", value: null }
  },
  {
    name: "A's sweep loses the reply of its clock-scheduled record",
    commands: [...dueClock, { op: "sweep", process: "A", withFlow: true, fault: { transaction: 1, phase: "lostReply" } }],
    result: { _tag: "Failure", error: "JournalError:unavailable" }
  }
]

describe("clocks faults on sweeps, restarts and the second process", () => {
  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`every fault agrees with the model on ${adapterName}`, async () => {
      for (const scenario of SCENARIOS) {
        const trace = await Effect.runPromise(executeScenario(faults, adapters[adapterName]!, { commands: scenario.commands }))
        expect(trace.divergence, `${scenario.name}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
        const last = trace.steps[trace.steps.length - 1]!
        expect(last.model, scenario.name).toEqual(scenario.result)
        expect(last.implementation, scenario.name).toEqual(scenario.result)
      }
    }, 120_000)
  }
})
