/**
 * The clocks model's alternatives (`models/clocks/alternatives.ts`): the choices the reference leaves
 * open that the model predicts, the canonical (shipped) one first. Pure: no database, no Effect.
 */
import { describe, expect, it } from "vitest"
import { MAX_ALTERNATIVES } from "../../harness/Alternatives.ts"
import { clocksModel, type FaultedCommand, keyOf, type ModelState, type Operation, operationAlternatives } from "../../models/clocks/index.ts"

const T0 = 1_000_000

/** Steps `commands` from the initial state, one millisecond apart unless they advance. */
const stepped = (commands: ReadonlyArray<FaultedCommand>): ModelState =>
  commands.reduce((state, command) => clocksModel.step(state, { command, atMs: state.nowMs }).state, clocksModel.init(T0))

const twoClocks = stepped([
  { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
  { op: "scheduleClock", exec: "e1", clock: "t2", durationMs: 1_000 }
])

describe("the clocks model's alternatives", () => {
  it("spells out the free choices of effects, advances, sweeps and restarts, the canonical one first", () => {
    const at = (command: FaultedCommand): Operation => ({ command, atMs: T0 })
    expect(operationAlternatives(twoClocks, at({ op: "effect", exec: "e1", attempt: 1, fails: false }))).toEqual([
      at({ op: "effect", exec: "e1", attempt: 1, fails: false }),
      { ...at({ op: "effect", exec: "e1", attempt: 1, fails: false }), effectRecordsInJournalTransactions: true }
    ])
    for (const command of [{ op: "advance", ms: 5 }, { op: "sweep", process: "A", withFlow: true }, { op: "restart" }] as const) {
      const alternatives = operationAlternatives(twoClocks, at(command))
      expect(alternatives).toEqual([at(command), { ...at(command), passOrder: 1 }])
    }
    expect(operationAlternatives(twoClocks, at({ op: "deferredDone", exec: "e1", deferred: "sig", value: 1 }))).toEqual([at({ op: "deferredDone", exec: "e1", deferred: "sig", value: 1 })])
  })

  it("a read of a consumed deferred under a storage fault may also run no transaction (C7), a first read may not", () => {
    const fault = { transaction: 1, phase: "statementFails", statement: 1 } as const
    const read: FaultedCommand = { op: "deferredResult", exec: "e1", deferred: "sig", fault }
    const completed = stepped([{ op: "deferredDone", exec: "e1", deferred: "sig", value: 1 }])
    expect(operationAlternatives(completed, { command: read, atMs: completed.nowMs })).toEqual([{ command: read, atMs: completed.nowMs }])
    const consumed = stepped([{ op: "deferredDone", exec: "e1", deferred: "sig", value: 1 }, { op: "deferredResult", exec: "e1", deferred: "sig" }])
    const { fault: _fault, ...unfaulted } = read
    expect(operationAlternatives(consumed, { command: read, atMs: consumed.nowMs })).toEqual([
      { command: read, atMs: consumed.nowMs },
      { command: unfaulted, atMs: consumed.nowMs }
    ])
    const plain: FaultedCommand = { op: "deferredResult", exec: "e1", deferred: "sig" }
    expect(operationAlternatives(consumed, { command: plain, atMs: consumed.nowMs })).toHaveLength(1)
  })

  it("a step gets as many pass orders as its pending clocks have, at most MAX_ALTERNATIVES", () => {
    const advance: FaultedCommand = { op: "advance", ms: 5 }
    const ordersFrom = (state: ModelState) => operationAlternatives(state, { command: advance, atMs: state.nowMs }).length
    expect(ordersFrom(clocksModel.init(T0))).toBe(1)
    expect(ordersFrom(stepped([{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }]))).toBe(1)
    expect(ordersFrom(twoClocks)).toBe(2)
    const clocks = (count: number) => stepped(Array.from({ length: count }, (_, index) => ({ op: "scheduleClock", exec: `e${index}`, clock: "t1", durationMs: 1_000 }) as const))
    expect(ordersFrom(clocks(3))).toBe(6)
    expect(ordersFrom(clocks(4))).toBe(MAX_ALTERNATIVES)
    expect(ordersFrom(clocks(5))).toBe(MAX_ALTERNATIVES)
  })

  it("reversed, the fires of one instant go in reverse order of arming: a refused first fire strikes the other clock", () => {
    const advance: FaultedCommand = { op: "advance", ms: 1_000, fault: { transaction: 1, phase: "commitRefused" } }
    const completed = (reversed: boolean) => {
      const { state } = clocksModel.step(twoClocks, { command: advance, atMs: twoClocks.nowMs, passOrder: reversed ? 1 : 0 })
      return ["t1", "t2"].filter((clock) => state.clocks[keyOf("e1", clock)]!.completedAtMs !== null)
    }
    expect(completed(false)).toEqual(["t2"])
    expect(completed(true)).toEqual(["t1"])
  })

  it("reversed, a sweep re-announces its pending clocks in descending key order: a refused second re-announcement leaves the other clock unarmed", () => {
    const restart: FaultedCommand = { op: "restart", fault: { transaction: 2, phase: "commitRefused" } }
    const armed = (reversed: boolean) =>
      clocksModel.step(twoClocks, { command: restart, atMs: twoClocks.nowMs, passOrder: reversed ? 1 : 0 }).state.timers.map((timer) => timer.key)
    expect(armed(false)).toEqual([keyOf("e1", "t1")])
    expect(armed(true)).toEqual([keyOf("e1", "t2")])
  })

  it("every order of the clocks due at one instant is spelled out: a refused first fire strikes each of three clocks in some alternative", () => {
    const threeClocks = stepped([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "scheduleClock", exec: "e1", clock: "t2", durationMs: 1_000 },
      { op: "scheduleClock", exec: "e2", clock: "t1", durationMs: 1_000 }
    ])
    const advance: FaultedCommand = { op: "advance", ms: 1_000, fault: { transaction: 1, phase: "commitRefused" } }
    const struck = operationAlternatives(threeClocks, { command: advance, atMs: threeClocks.nowMs }).map((operation) => {
      const { state } = clocksModel.step(threeClocks, operation)
      return Object.keys(state.clocks).filter((key) => state.clocks[key]!.completedAtMs === null).join(",")
    })
    expect(new Set(struck)).toEqual(new Set([keyOf("e1", "t1"), keyOf("e1", "t2"), keyOf("e2", "t1")]))
  })

  it("in the journal's own transactions, a refused effect record is the journal's unavailable, not a storage error", () => {
    const effect: FaultedCommand = { op: "effect", exec: "e1", attempt: 1, fails: false, fault: { transaction: 1, phase: "commitRefused" } }
    const result = (effectRecordsInJournalTransactions: boolean) =>
      clocksModel.step(twoClocks, { command: effect, atMs: twoClocks.nowMs, effectRecordsInJournalTransactions }).result
    expect(result(false)).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(result(true)).toEqual({ _tag: "Failure", error: "JournalError:unavailable" })
  })
})
