/**
 * The pool model on its own: admission refuses exactly at maxConnections + 64, the gate grants first
 * come first served and hands freed slots over, interruptions give every slot back (also at the
 * hand-over), statements inside a transaction take no slot, an aborted transaction's commit fails,
 * long channels fail before anything is sent, and the retry helper's timers follow 10 ms doubling
 * capped at 250 ms.
 */
import { describe, expect, it } from "vitest"
import {
  channelCheckAlternatives,
  observableOps,
  plainAcquire,
  type OpSpec,
  poolModel,
  type PoolModelState,
  type PoolOperation,
  probeOperation,
  resolveCommand,
  retryDelayMs
} from "../../models/pool/index.ts"

const spec = (id: string, kind: OpSpec["kind"], extra: Partial<OpSpec> = {}): OpSpec => ({
  id,
  kind,
  retry: false,
  failing: false,
  longChannel: false,
  inside: null,
  ...extra
})

const run = (maxConnections: number, operations: ReadonlyArray<PoolOperation>): PoolModelState =>
  operations.reduce((state, operation) => poolModel.step(state, operation).state, poolModel.init({ maxConnections, nowMs: 0 }))

const statusOf = (state: PoolModelState) => Object.fromEntries(Object.entries(observableOps(state)).map(([id, op]) => [id, op.status]))

describe("pool model", () => {
  it("grants free slots, queues the rest in arrival order and hands a freed slot to the oldest waiter", () => {
    const state = run(1, [
      { op: "start", spec: spec("o1", "acquire") },
      { op: "start", spec: spec("o2", "acquire") },
      { op: "start", spec: spec("o3", "acquire") },
      { op: "release", id: "o1", reborrow: "o1r" }
    ])
    expect(statusOf(state)).toEqual({ o1: "succeeded", o2: "holding", o3: "pending", o1r: "pending" })
    expect(state.waiters).toEqual(["o3", "o1r"])
    expect(state.ops.o2!.grantedBy).toBe("handover")
  })

  it("refuses at once exactly when maxConnections + 64 checkouts are admitted, sending nothing", () => {
    const flood = resolveCommand(poolModel.init({ maxConnections: 2, nowMs: 0 }), { op: "flood", extra: 1 })
    expect(flood?.op === "flood" && flood.ids.length).toBe(67)
    const state = run(2, [flood!])
    const refused = Object.values(state.ops).filter((op) => op.failure === "refusal")
    expect(refused.map((op) => op.spec.id)).toEqual(["f67"])
    expect(refused[0]!.statements).toBe(0)
    expect(state.holders.length + state.waiters.length).toBe(66)
  })

  it("gives every slot back on interruption: waiting, holding, and at the hand-over", () => {
    const state = run(1, [
      { op: "start", spec: spec("o1", "transaction") },
      { op: "start", spec: spec("o2", "acquire") },
      { op: "start", spec: spec("o3", "listen") },
      { op: "handoverInterrupt", holder: "o1", waiter: "o2" }
    ])
    expect(statusOf(state)).toEqual({ o1: "succeeded", o2: "interrupted", o3: "holding" })
    expect(state.ops.o3!.grantedBy).toBe("passedOn")
    expect(state.ops.o2!.raced).toBe(true)
    const probed = poolModel.step(state, probeOperation(state)).state
    expect(probed.holders).toEqual(["p1"])
    expect(probed.ops.o3!.status).toBe("interrupted")
  })

  it("runs a statement inside a transaction without a slot, and fails the aborted transaction's commit", () => {
    const state = run(1, [
      { op: "start", spec: spec("o1", "transaction", { failing: true }) },
      { op: "start", spec: spec("o2", "borrow", { inside: "o1" }) },
      { op: "start", spec: spec("o3", "notify", { inside: "o1" }) },
      { op: "release", id: "o1", reborrow: null }
    ])
    expect(observableOps(state)).toEqual({
      o1: { status: "failed", failure: "error", statements: 1 },
      o2: { status: "succeeded", failure: null, statements: 1 },
      o3: { status: "succeeded", failure: null, statements: 1 }
    })
  })

  it("fails a notify on a channel over 63 bytes without a checkout", () => {
    const state = run(1, [{ op: "start", spec: spec("o1", "notify", { longChannel: true }) }])
    expect(observableOps(state).o1).toEqual({ status: "failed", failure: "error", statements: 0 })
    expect(state.holders).toEqual([])
  })

  it("offers, for a notify on a long channel, the check once granted as a second prediction: it waits for the gate, then fails with nothing sent", () => {
    const notify: PoolOperation = { op: "start", spec: spec("o2", "notify", { longChannel: true }) }
    const [canonical, atGrant, ...rest] = channelCheckAlternatives(notify)
    expect(canonical).toBe(notify)
    expect(rest).toEqual([])
    expect(channelCheckAlternatives({ op: "start", spec: spec("o2", "notify") })).toHaveLength(1)
    const waiting = run(1, [{ op: "start", spec: spec("o1", "acquire") }, atGrant!])
    expect(statusOf(waiting)).toEqual({ o1: "holding", o2: "pending" })
    expect(waiting.waiters).toEqual(["o2"])
    const released = run(2, [{ op: "start", spec: spec("o1", "acquire") }, { op: "start", spec: spec("l1", "listen") }, atGrant!, { op: "start", spec: spec("o3", "acquire") }, { op: "release", id: "o1", reborrow: null }])
    expect(observableOps(released).o2).toEqual({ status: "failed", failure: "error", statements: 0 })
    expect(released.ops.l1!.received).toEqual([])
    expect(statusOf(released).o3).toBe("holding")
    expect(released.holders).toEqual(["l1", "o3"])
    const free = run(1, [atGrant!])
    expect(observableOps(free).o2).toEqual({ status: "failed", failure: "error", statements: 0 })
    expect(free.holders).toEqual([])
  })

  it("retries refusals after 10, 20, 40, 80, 160, 250, 250 ms", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(retryDelayMs)).toEqual([10, 20, 40, 80, 160, 250, 250])
    const flooded = run(1, [{ op: "flood", ids: Array.from({ length: 65 }, (_, index) => `f${index + 1}`) }])
    const refused = poolModel.step(flooded, { op: "start", spec: spec("o66", "borrow", { retry: true }) }).state
    expect(refused.ops.o66).toMatchObject({ status: "pending", refusals: 1, retryAtMs: 10 })
    const stillFull = poolModel.step(refused, { op: "advance", toMs: 35 }).state
    expect(stillFull.ops.o66).toMatchObject({ status: "pending", refusals: 3, retryAtMs: 70 })
    const drained = poolModel.step(stillFull, { op: "drain", ids: [...stillFull.waiters].reverse().concat(stillFull.holders) }).state
    const retried = poolModel.step(drained, { op: "advance", toMs: 70 }).state
    expect(retried.ops.o66).toMatchObject({ status: "succeeded", statements: 1 })
  })

  it("resolves commands against the state, and skips those with nothing to act on", () => {
    const empty = poolModel.init({ maxConnections: 2, nowMs: 0 })
    expect(resolveCommand(empty, { op: "release", pick: 3, reborrow: false })).toBeNull()
    expect(resolveCommand(empty, { op: "handoverInterrupt", pick: 0 })).toBeNull()
    expect(resolveCommand(empty, { op: "drain" })).toBeNull()
    const nested = resolveCommand(empty, { op: "start", kind: "borrow", retry: true, failing: true, longChannel: true, inside: 1 })
    expect(nested).toEqual({ op: "start", spec: spec("o1", "borrow", { retry: true, failing: true }) })
    const state = run(2, [{ op: "start", spec: plainAcquire("o1") }, { op: "start", spec: spec("o2", "transaction") }])
    expect(resolveCommand(state, { op: "start", kind: "notify", retry: true, failing: false, longChannel: false, inside: 5 }))
      .toEqual({ op: "start", spec: spec("o3", "notify", { inside: "o2" }) })
    expect(resolveCommand(state, { op: "release", pick: 1, reborrow: true })).toEqual({ op: "release", id: "o2", reborrow: "o2r" })
  })

  it("records when each attempt of a retried checkout begins: at its start, then 10 ms doubling up to 250 ms (P7)", () => {
    const filling = resolveCommand(run(1, []), { op: "flood", extra: 0 })!
    const retrying = run(1, [filling, { op: "start", spec: spec("o66", "borrow", { retry: true }) }, { op: "advance", toMs: 620 }])
    expect(retrying.ops["o66"]!.attemptsAtMs).toEqual([0, 10, 30, 70, 150, 310, 560])
    const plain = run(1, [filling, { op: "start", spec: spec("o67", "borrow") }])
    expect(plain.ops["o67"]!.attemptsAtMs).toEqual([])
  })

  it("never mutates the state it is given", () => {
    const before = run(1, [{ op: "start", spec: spec("o1", "acquire") }, { op: "start", spec: spec("o2", "acquire") }])
    const frozen = JSON.stringify(before)
    poolModel.step(before, { op: "release", id: "o1", reborrow: "o1r" })
    poolModel.step(before, { op: "interrupt", id: "o2" })
    expect(JSON.stringify(before)).toBe(frozen)
  })
})
