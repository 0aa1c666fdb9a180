/**
 * The clocks properties under a failed statement (the storage boundary's `statementFails` fault): one
 * statement of a call's or a fire's transaction fails and the transaction rolls back, so rows and records roll back
 * together (C4) and the caller sees the storage error, as for a refused COMMIT, whichever statement it
 * was. Where the transaction fails on its own (a C2 conflict), the model voids the fault and the
 * harness does not inject it. Each scenario runs through `clocks/faults` on every in-process adapter:
 * the shipped engine agrees with the model after every step at every ordinal, and an engine that
 * swallows a failed consumption mark is caught.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { type FaultedCommand, initialState, step } from "../../models/clocks/index.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import { consumeSwallowsStatementFailure } from "../known-bad/clocks/consume-swallows-statement-failure.ts"
import { runClocksModel } from "../support/clocksModelRun.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faultsOf = (suite: ReturnType<typeof clocksSuite>) => propertyById(suite, "clocks/faults")
const shipped = faultsOf(clocksSuite())
const failing = (statement: number) => ({ transaction: 1, phase: "statementFails", statement }) as const

/** Statement ordinals swept: every outermost statement of the shipped engine's transactions, and one past them. */
const ORDINALS = [1, 2, 3, 4]

/** A completion read, a completion, a schedule and a fire, each with statement `statement` of its transaction failing. */
const scenarios = (statement: number): ReadonlyArray<{ readonly name: string; readonly commands: ReadonlyArray<Json> }> => [
  {
    name: `a read whose statement ${statement} fails, then read again`,
    commands: [
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 },
      { op: "deferredResult", exec: "e1", deferred: "sig", fault: failing(statement) },
      { op: "deferredResult", exec: "e1", deferred: "sig" }
    ]
  },
  {
    name: `a completion whose statement ${statement} fails, then completed again`,
    commands: [
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 1, fault: failing(statement) },
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 2 },
      { op: "deferredResult", exec: "e1", deferred: "sig" }
    ]
  },
  {
    name: `a schedule whose statement ${statement} fails arms nothing`,
    commands: [{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000, fault: failing(statement) }, { op: "advance", ms: 2_000 }]
  },
  {
    name: `a fire whose statement ${statement} fails is retried with backoff`,
    commands: [{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }, { op: "advance", ms: 1_000, fault: failing(statement) }, { op: "advance", ms: 1_000 }]
  }
]

/** C2: a re-completion after a rewind that kept the records conflicts on its own, before or after any statement. */
const CONFLICT: ReadonlyArray<FaultedCommand> = [
  { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 },
  { op: "rewind", exec: "e1", deferred: "sig", keepRecords: true },
  { op: "deferredDone", exec: "e1", deferred: "sig", value: 2, fault: failing(1) }
]

describe("clocks when a statement of a transaction fails", () => {
  it("the model fails the call and keeps nothing, and voids the fault where the transaction fails on its own (C2, C4)", () => {
    const completed = step(initialState(), { command: { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 }, atMs: 0 })
    const read = step(completed.state, { command: { op: "deferredResult", exec: "e1", deferred: "sig", fault: failing(1) }, atMs: 0 })
    expect(read.result).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(read.faultVoided).toBe(false)
    expect(read.state).toEqual(completed.state)
    const { outcomes } = runClocksModel(CONFLICT)
    expect(outcomes[2]!.result).toEqual({ _tag: "Failure", error: "JournalError:idempotency_conflict" })
    expect(outcomes[2]!.faultVoided).toBe(true)
  })

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`agrees with the model after every step at every statement ordinal on ${adapterName}`, async () => {
      for (const statement of ORDINALS) {
        for (const scenario of scenarios(statement)) {
          const trace = await Effect.runPromise(executeScenario(shipped, adapters[adapterName]!, { commands: scenario.commands }))
          expect(trace.divergence, `${scenario.name}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
          expect(trace.steps).toHaveLength(scenario.commands.length)
        }
      }
      const conflict = await Effect.runPromise(executeScenario(shipped, adapters[adapterName]!, { commands: CONFLICT as unknown as ReadonlyArray<Json> }))
      expect(conflict.divergence?.explanation ?? null).toBeNull()
      expect(conflict.steps[2]!.fault).toMatch(/not injected/)
    }, 300_000)

    it(`catches an engine that swallows a failed consumption mark on ${adapterName}`, async () => {
      const swallowing = faultsOf(clocksSuite(consumeSwallowsStatementFailure.implementation))
      const trace = await Effect.runPromise(executeScenario(swallowing, adapters[adapterName]!, { commands: scenarios(1)[0]!.commands }))
      expect(trace.divergence?.stepIndex).toBe(1)
      expect(consumeSwallowsStatementFailure.breaks).toContain(trace.divergence?.requirementId)
      expect(trace.steps[1]!.implementation).toMatchObject({ _tag: "Success" })
    }, 120_000)
  }
})
