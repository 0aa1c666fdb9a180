/**
 * The cron properties under a refused COMMIT (the storage boundary's `commitRefused` fault, drawn by
 * `cron/faults` through `CronScenario.refusedCommits`): the phase's statements ran, then the database
 * refused the commit, so nothing of that transaction is kept, the caller sees the `SqlError`, and the
 * runner's process goes on (no rebuild) holding no claims. A refused turn writes no tick (N4: only a
 * committed turn writes), a refused claim leases nothing (the ticks stay due, N6), a refused delivery
 * keeps neither the handler's writes nor the receipt (so the tick fires when delivered again, I2), and
 * a refused rewrite keeps the claimed row until the lease runs out (N8). Each scenario is executed by
 * `cron/faults` on every in-process adapter and must agree with the model after every step.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { cronModel } from "../../models/cron/index.ts"
import { cronSuite } from "../../properties/cron/index.ts"
import { type Command, type CronScenario, REFUSED_COMMIT, runningCommands, TIMING } from "../../properties/cron/scenario.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faults = propertyById(cronSuite(), "cron/faults")

const POOL = [{ spec: "*/15 * * * *", zone: "America/New_York", command: "ping", payload: "{}" }]
const DECLARE: ReadonlyArray<Command> = [{ op: "declare", runner: 0, entries: [{ index: 0, command: "ping" }] }, { op: "declare", runner: 1, entries: null }]
const scenario = (commands: ReadonlyArray<Command>, refusedCommits: ReadonlyArray<number>): CronScenario => ({
  anchor: 0,
  skipMs: 600_000,
  pool: POOL,
  probesMs: [0],
  commands: [...DECLARE, ...commands],
  refusedCommits
})

const SCENARIOS: ReadonlyArray<{ readonly name: string; readonly scenario: CronScenario }> = [
  {
    name: "a refused turn writes no tick, and the next committed turn writes it",
    scenario: scenario([{ op: "turn", runner: 0, actorId: "b", turnMs: 0, rejected: false }, { op: "turn", runner: 0, actorId: "b", turnMs: 0, rejected: false }], [0])
  },
  {
    name: "a refused turn in the application's own transaction (writeTicks) writes no tick either",
    scenario: { ...scenario([{ op: "turn", runner: 0, actorId: "b", turnMs: 500, rejected: false }, { op: "turn", runner: 0, actorId: "b", turnMs: 500, rejected: false }], [0]), ownTurns: true }
  },
  {
    name: "a refused bootstrap writes nothing, and bootstrapping again writes the ticks",
    scenario: scenario([{ op: "bootstrap", runner: 0 }, { op: "bootstrap", runner: 0 }], [0])
  },
  {
    name: "a refused claim leases nothing: the same runner claims the tick at once and delivers it",
    scenario: scenario([
      { op: "bootstrap", runner: 0 }, { op: "advanceToDue" }, { op: "claim", runner: 0 },
      { op: "settle", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }
    ], [1])
  },
  {
    name: "a refused delivery keeps no receipt: after the lease the tick is claimed again and fires",
    scenario: scenario([
      { op: "bootstrap", runner: 0 }, { op: "advanceToDue" }, { op: "claim", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 },
      { op: "advance", ms: TIMING.leaseMs + 1_000 }, { op: "claim", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }
    ], [3])
  },
  {
    name: "a refused rewrite keeps the claimed row: after the lease the delivery replays its receipt and the row is rewritten once",
    scenario: scenario([
      { op: "bootstrap", runner: 0 }, { op: "advanceToDue" }, { op: "claim", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 },
      { op: "advance", ms: TIMING.leaseMs + 1_000 }, { op: "claim", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }, { op: "settle", runner: 0 }
    ], [4])
  }
]

describe("cron when the database refuses a COMMIT", () => {
  it("refusedCommits puts the fault on the n-th transactional command only", () => {
    const commands = runningCommands(SCENARIOS[3]!.scenario)
    expect(commands.filter((command) => "fault" in command)).toEqual([{ op: "claim", runner: 0, fault: REFUSED_COMMIT }])
    // The refused claim is followed by the runner's next poll.
    expect(commands.length).toBe(SCENARIOS[3]!.scenario.commands.length + 1)
    expect(runningCommands({ ...SCENARIOS[3]!.scenario, refusedCommits: [99] })).toEqual(SCENARIOS[3]!.scenario.commands)
    expect(runningCommands(SCENARIOS[1]!.scenario).filter((command) => command.op === "turn").map((command) => "ownTransaction" in command && command.ownTransaction)).toEqual([true, true])
  })

  it("the model keeps nothing of a refused transaction and drops the runner's claims", () => {
    const init = cronModel.init({ runners: 2, timing: TIMING })
    const declared = cronModel.step(init, { kind: "declare", atMs: 0, runner: 0, schedule: { skipMs: 600_000, entries: POOL } }).state
    const refused = cronModel.step(declared, { kind: "turn", atMs: 0, runner: 0, actorId: "b", turnMs: 0, rejected: false, fault: REFUSED_COMMIT })
    expect(refused.result).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(refused.state.rows).toEqual([])
    const rejected = cronModel.step(declared, { kind: "turn", atMs: 0, runner: 0, actorId: "b", turnMs: 0, rejected: true, fault: REFUSED_COMMIT })
    expect(rejected.result).toEqual({ _tag: "Failure", error: "TurnRejected" })
    const written = cronModel.step(declared, { kind: "bootstrap", atMs: 0, runner: 0 }).state
    const dueAtMs = written.rows[0]!.dueAtMs
    const claimed = cronModel.step(written, { kind: "claim", atMs: dueAtMs, runner: 0 }).state
    const refusedSettle = cronModel.step(claimed, { kind: "settle", atMs: dueAtMs, runner: 0, fault: REFUSED_COMMIT })
    expect(refusedSettle.state.rows).toEqual(claimed.rows)
    expect(refusedSettle.state.runners[0]!.inFlight).toEqual([])
  })

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`agrees with the model after every step on ${adapterName}`, async () => {
      for (const { name, scenario } of SCENARIOS) {
        const trace = await Effect.runPromise(executeScenario(faults, adapters[adapterName]!, scenario as unknown as Json))
        expect(trace.divergence, `${name}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
        expect(trace.steps).toHaveLength(runningCommands(scenario).length)
        const refused = trace.steps.filter((step) => step.fault !== undefined)
        expect(refused.map((step) => step.model), name).toEqual([{ _tag: "Failure", error: "SqlError" }])
        expect(refused[0]!.fault, name).toMatch(/^the database refuses to commit storage transaction 1 \((turn|bootstrap|claim|settle)\) \(serialization failure\)/)
      }
    }, 120_000)
  }
})
