/**
 * The cron properties under a failed statement (the storage boundary's `statementFails` fault, drawn
 * by `cron/faults` through `CronScenario.failedStatements`): one statement of a phase's transaction
 * fails and the transaction rolls back, before anything the phase itself would fail on, so nothing of it is kept and
 * the caller sees the `SqlError`, as for a refused COMMIT. The model is told the fault as it struck
 * (`harness/StruckFault.ts`). Each scenario runs through `cron/faults` on every in-process adapter:
 * the shipped runtime agrees with the model after every step at every ordinal, and a runtime that
 * swallows a failed claim statement is caught.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { cronModel } from "../../models/cron/index.ts"
import { cronSuite } from "../../properties/cron/index.ts"
import { type Command, type CronScenario, runningCommands, TIMING } from "../../properties/cron/scenario.ts"
import { claimSwallowsStatementFailure } from "../known-bad/cron/statement.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faultsOf = (suite: ReturnType<typeof cronSuite>) => propertyById(suite, "cron/faults")
const shipped = faultsOf(cronSuite())

const POOL = [{ spec: "*/15 * * * *", zone: "America/New_York", command: "ping", payload: "{}" }]
const DECLARE: ReadonlyArray<Command> = [{ op: "declare", runner: 0, entries: [{ index: 0, command: "ping" }] }, { op: "declare", runner: 1, entries: null }]
const DELIVER: ReadonlyArray<Command> = [
  { op: "bootstrap", runner: 0 }, { op: "advanceToDue" }, { op: "claim", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 },
  { op: "advance", ms: TIMING.leaseMs + 1_000 }, { op: "claim", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }
]
const scenario = (commands: ReadonlyArray<Command>, position: number, statement: number): CronScenario => ({
  anchor: 0,
  skipMs: 600_000,
  pool: POOL,
  probesMs: [0],
  commands: [...DECLARE, ...commands],
  failedStatements: [{ position, statement }]
})

/** Statement ordinals swept: every outermost statement of the shipped runtime's phases, and past them. */
const ORDINALS = [1, 2, 3, 4, 6]

/** A turn, a bootstrap, a claim, a delivery and a rewrite, each with statement `statement` of its transaction failing. */
const scenarios = (statement: number): ReadonlyArray<{ readonly name: string; readonly scenario: CronScenario }> => [
  { name: `a turn whose statement ${statement} fails`, scenario: scenario([{ op: "turn", runner: 0, actorId: "b", turnMs: 0, rejected: false }, { op: "turn", runner: 0, actorId: "b", turnMs: 0, rejected: false }], 0, statement) },
  { name: `a bootstrap whose statement ${statement} fails`, scenario: scenario([{ op: "bootstrap", runner: 0 }, { op: "bootstrap", runner: 0 }], 0, statement) },
  { name: `a claim whose statement ${statement} fails`, scenario: scenario(DELIVER.slice(0, 6), 1, statement) },
  { name: `a delivery whose statement ${statement} fails`, scenario: scenario(DELIVER, 3, statement) },
  { name: `a rewrite whose statement ${statement} fails`, scenario: scenario(DELIVER, 4, statement) }
]

describe("cron when a statement of a phase's transaction fails", () => {
  it("the model fails the phase with the storage error before its own failure, keeping nothing", () => {
    const init = cronModel.init({ runners: 2, timing: TIMING })
    const declared = cronModel.step(init, { kind: "declare", atMs: 0, runner: 0, schedule: { skipMs: 600_000, entries: POOL } }).state
    const fault = { transaction: 1, phase: "statementFails", statement: 1 } as const
    const failed = cronModel.step(declared, { kind: "turn", atMs: 0, runner: 0, actorId: "b", turnMs: 0, rejected: false, fault })
    expect(failed.result).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(failed.state.rows).toEqual([])
    // It struck before the rejection the turn would have failed on.
    expect(cronModel.step(declared, { kind: "turn", atMs: 0, runner: 0, actorId: "b", turnMs: 0, rejected: true, fault }).result).toEqual({ _tag: "Failure", error: "SqlError" })
  })

  it("failedStatements puts the fault on the n-th transactional command, and a failed claim is followed by the next poll", () => {
    const claim = scenarios(2)[2]!.scenario
    const commands = runningCommands(claim)
    expect(commands.filter((command) => "fault" in command)).toEqual([{ op: "claim", runner: 0, fault: { transaction: 1, phase: "statementFails", statement: 2 } }])
    expect(commands.length).toBe(claim.commands.length + 1)
    expect(runningCommands({ ...claim, refusedCommits: [1] }).filter((command) => "fault" in command).map((command) => "fault" in command && command.fault?.phase)).toEqual(["commitRefused"])
  })

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`agrees with the model after every step at every statement ordinal on ${adapterName}`, async () => {
      let struck = 0
      for (const statement of ORDINALS) {
        for (const { name, scenario } of scenarios(statement)) {
          const trace = await Effect.runPromise(executeScenario(shipped, adapters[adapterName]!, scenario as unknown as Json))
          expect(trace.divergence, `${name}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
          expect(trace.steps).toHaveLength(runningCommands(scenario).length)
          struck += trace.steps.filter((step) => step.fault !== undefined && !/COMMIT was refused|not struck|not reached/.test(step.fault)).length
        }
      }
      // Not vacuous: statements really failed (the first of every phase's transaction at least).
      expect(struck).toBeGreaterThanOrEqual(scenarios(1).length)
    }, 300_000)

    it(`catches a runtime that swallows a failed claim statement on ${adapterName}`, async () => {
      const swallowing = faultsOf(cronSuite(claimSwallowsStatementFailure.implementation))
      const caught = []
      for (const statement of ORDINALS) {
        const trace = await Effect.runPromise(executeScenario(swallowing, adapters[adapterName]!, scenarios(statement)[2]!.scenario as unknown as Json))
        if (trace.divergence !== null) caught.push(trace.divergence.requirementId)
      }
      expect(caught.length).toBeGreaterThanOrEqual(1)
      for (const id of caught) expect(claimSwallowsStatementFailure.breaks).toContain(id)
    }, 120_000)
  }
})
