/**
 * The failed tick write appended to every cron fault scenario (`properties/cron/statementFaults.ts`,
 * `CronScenario.failedTickWrite`): a runner declares one pool entry, then its turn (through `runTurn`)
 * or bootstrap has one statement of its transaction fail (N4, N5). Until 2026-12-06 only the positional
 * `failedStatements` could strike a tick write, and at the gate's budget none did, so a blind bug
 * (`cron-2/write-ticks-ignores-insert-failure`: the tick insert piped to `Effect.ignore`) was missed:
 * - the draw: every fault scenario ends with it, drawn last, its ordinal over that transaction's
 *   statements (a turn's 1, a bootstrap's 1 to 2), sometimes wider;
 * - the shipped runtime and `examples/third-party-cron` agree with the model at each ordinal;
 * - the third-party runtime with the blind bug applied (to a copy, `examples/*.blind`, removed
 *   afterwards) is caught under CRN-004 (a turn) and CRN-005 (a bootstrap), also by `cron/faults` at
 *   the gate's budget.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as cronBlindBugs } from "../../blind-bugs/cron-2.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { cronScenario } from "../../properties/cron/arbitraries.ts"
import { CRON_SHAPES, cronSuite } from "../../properties/cron/index.ts"
import { type Command, type CronScenario, runningCommands } from "../../properties/cron/scenario.ts"
import { failedTickWrite, MAX_FAILED_TICK_WRITE_COMMANDS, TICK_WRITE_STATEMENTS, tickWriteStatements } from "../../properties/cron/statementFaults.ts"
import type { CronImplementation } from "../../subjects/cron/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faultsOf = (implementation?: CronImplementation) => propertyById(cronSuite(implementation), "cron/faults")

/** A scenario whose only fault is the failed tick write `write` (a turn or a bootstrap) with its statement `statement` failing. */
const scenario = (write: "turn" | "bootstrap", statement: number): CronScenario => {
  const fault = { transaction: 1, phase: "statementFails", statement } as const
  const failed: Command = write === "turn" ? { op: "turn", runner: 1, actorId: "b", turnMs: 0, rejected: false, fault } : { op: "bootstrap", runner: 1, fault }
  return {
    anchor: 0,
    skipMs: 600_000,
    // Runner 1's entry is not runner 0's, so its tick insert writes a row of its own: under SQLite's
    // meaning a swallowed insert failure commits the rest, and only a row the insert would have written
    // shows it (an insert that does nothing on conflict has nothing to lose).
    pool: [{ spec: "*/15 * * * *", zone: "America/New_York", command: "ping", payload: "{}" }, { spec: "*/20 * * * *", zone: "UTC", command: "pong", payload: "{}" }],
    probesMs: [0],
    commands: [{ op: "declare", runner: 0, entries: [{ index: 0, command: "ping" }] }, { op: "declare", runner: 1, entries: null }, { op: "bootstrap", runner: 0 }],
    failedTickWrite: [{ op: "declare", runner: 1, entries: [{ index: 1, command: "pong" }] }, failed]
  }
}

/** The tick writes swept: a turn's only statement, a bootstrap's two, and statements past both. */
const SWEPT = [["turn", 1], ["turn", 2], ["bootstrap", 1], ["bootstrap", 2], ["bootstrap", 3]] as const

describe("the failed tick write a cron fault scenario ends with", () => {
  const sampled = fc.sample(cronScenario(CRON_SHAPES.faults), { numRuns: 400, seed: 7 })

  it("is drawn last, in every fault scenario and none other: a declaration, then a turn through runTurn, a bootstrap, or a delivered tick's settling of that runner with a failed statement", () => {
    const kinds = new Set<string>()
    for (const drawn of sampled) {
      expect(Object.keys(drawn).at(-1)).toBe("failedTickWrite")
      const [declare, ...rest] = drawn.failedTickWrite!
      const write = rest.at(-1)!
      const runner = (declare as { readonly runner: number }).runner
      expect(drawn.failedTickWrite!.length).toBeLessThanOrEqual(MAX_FAILED_TICK_WRITE_COMMANDS)
      expect(declare).toMatchObject({ op: "declare", entries: [{ command: "ping" }] })
      expect(["turn", "bootstrap", "settle"]).toContain(write.op)
      expect(write).toMatchObject({ runner, fault: { transaction: 1, phase: "statementFails" } })
      // A settling fails after the delivery: bootstrap, due, claim, settleUnfired, the delivery, then settleFired.
      if (write.op === "settle") expect(rest.slice(0, -1)).toEqual([{ op: "bootstrap", runner }, { op: "advanceToDue" }, { op: "claim", runner }, { op: "settle", runner }, { op: "settle", runner }])
      else expect(rest.length).toBe(1)
      if (write.op === "turn") expect(write).toMatchObject({ rejected: false, turnMs: 0 })
      expect(write).not.toHaveProperty("ownTransaction")
      expect(runningCommands(drawn).slice(-drawn.failedTickWrite!.length)).toEqual(drawn.failedTickWrite)
      kinds.add(write.op)
    }
    expect([...kinds].sort()).toEqual(["bootstrap", "settle", "turn"])
    expect(fc.sample(cronScenario(CRON_SHAPES.model), { numRuns: 50, seed: 7 }).every((drawn) => !("failedTickWrite" in drawn))).toBe(true)
  })

  it("names a statement of the write's transaction three times in four, sometimes one up to 12", () => {
    const writes = fc.sample(failedTickWrite(3), { numRuns: 2_000, seed: 11 }).map((commands) => commands.at(-1) as Extract<Command, { op: "turn" | "bootstrap" | "settle" }>)
    const within = writes.filter((write) => write.fault!.statement! <= tickWriteStatements(write)).length
    expect(within / writes.length).toBeGreaterThan(0.7)
    expect(within / writes.length).toBeLessThan(0.95)
    expect(Math.max(...writes.map((write) => write.fault!.statement!))).toBe(12)
    // The statements a swallowed write shows in (a turn's 1st, a bootstrap's 2nd, settleFired's 1st) are drawn often.
    const writesThemselves = writes.filter((write) => write.fault!.statement === tickWriteStatements(write)).length
    expect(writesThemselves / writes.length).toBeGreaterThan(0.5)
  })
})

describe("a failed statement in a tick write", () => {
  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`the shipped runtime agrees with the model at every swept statement on ${adapterName}`, async () => {
      for (const [write, statement] of SWEPT) {
        const trace = await Effect.runPromise(executeScenario(faultsOf(), adapters[adapterName]!, scenario(write, statement) as unknown as Json))
        expect(trace.divergence, `${write} ${statement}: ${trace.divergence?.explanation}`).toBeNull()
        if (statement <= TICK_WRITE_STATEMENTS[write]) expect(trace.situations ?? []).toContain("tickWriteStatementFailed")
      }
    }, 120_000)
  }
})

describe("the blind bug write-ticks-ignores-insert-failure, applied to a copy of examples/third-party-cron", () => {
  const copies = useBlindCopy<CronImplementation>(cronBlindBugs, "write-ticks-ignores-insert-failure")

  it("the unmodified runtime agrees with the model; the modified one is caught at the failed insert under N4 or N5", async () => {
    const adapter = makeSqliteAdapter()
    for (const [write, statement] of SWEPT) {
      const run = scenario(write, statement) as unknown as Json
      const trace = await Effect.runPromise(executeScenario(faultsOf(copies.original()), adapter, run))
      expect(trace.divergence, `${write} ${statement}: ${trace.divergence?.explanation}`).toBeNull()
      const swallowed = await Effect.runPromise(executeScenario(faultsOf(copies.blind()), adapter, run))
      if (statement !== TICK_WRITE_STATEMENTS[write]) continue
      expect(swallowed.divergence?.requirementId, `${write} ${statement}`).toBe(write === "turn" ? "CRN-004" : "CRN-005")
      expect(swallowed.divergence?.stepIndex).toBe(swallowed.steps.length - 1)
      expect(swallowed.steps.at(-1)!.implementation).toEqual({ _tag: "Success", value: null })
    }
  }, 120_000)

  it("cron/faults catches it at the gate's budget on sqlite, under CRN-004 or CRN-005", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: cronSuite(copies.blind()), adapter: makeSqliteAdapter(), propertyOrder: ["cron/faults"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(["CRN-004", "CRN-005"]).toContain(counterexample.divergence.requirementId)
  }, 300_000)
})
