/**
 * The pool model's named situations, decided from hand-built model steps: granted at once or queued,
 * the admission bound filled and refused at, a re-checkout behind waiters, interrupts by phase
 * (waiting, holding, mid-statement, mid-COMMIT of an aborted transaction), a slot passed on at the
 * hand-over, notify delivered and inside a transaction, and the retry helper's ladder up to its cap.
 * Also: the situations of random model runs agree with the requirements `coveredBy` credits, and the
 * surface probes' situations follow the probe as generated.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type OpSpec,
  type PoolCommand,
  poolModel,
  type PoolModelState,
  type PoolOperation,
  POOL_SITUATIONS,
  poolSituations,
  probeOperation,
  resolveCommand
} from "../../models/pool/index.ts"
import { ADMISSION_SHAPE, MODEL_SHAPE, poolScenario } from "../../properties/pool/arbitraries.ts"
import { coveredBy } from "../../properties/pool/coverage.ts"
import { surfaceSituations } from "../../properties/pool/surfaceSituations.ts"
import { targetedUnit } from "../../properties/pool/targeted.ts"

const spec = (id: string, kind: OpSpec["kind"], extra: Partial<OpSpec> = {}): OpSpec => ({ id, kind, retry: false, failing: false, longChannel: false, inside: null, ...extra })

const run = (maxConnections: number, operations: ReadonlyArray<PoolOperation>): PoolModelState =>
  operations.reduce((state, operation) => poolModel.step(state, operation).state, poolModel.init({ maxConnections, nowMs: 0 }))

/** The situations `operation` reaches from `before`. */
const reached = (before: PoolModelState, operation: PoolOperation) => poolSituations(before, operation, poolModel.step(before, operation).state)

const start = (id: string, kind: OpSpec["kind"], extra: Partial<OpSpec> = {}): PoolOperation => ({ op: "start", spec: spec(id, kind, extra) })

/** Steps `commands` through the model as the property resolves them, returning every situation reached. */
const situationsOfCommands = (maxConnections: number, commands: ReadonlyArray<PoolCommand>): ReadonlySet<string> => {
  let state = poolModel.init({ maxConnections, nowMs: 0 })
  const found = new Set<string>()
  for (const command of commands) {
    const operation = resolveCommand(state, command)
    if (operation === null) continue
    const after = poolModel.step(state, operation).state
    for (const situation of poolSituations(state, operation, after)) found.add(situation)
    state = after
  }
  return found
}

describe("pool situations", () => {
  it("tells a checkout granted at once from one queued at the gate", () => {
    expect(reached(run(1, []), start("o1", "acquire"))).toEqual(["grantedAtOnce"])
    expect(reached(run(1, [start("o1", "acquire")]), start("o2", "acquire"))).toEqual(["queuedAtGate"])
  })

  it("marks the flood that fills admission, the checkout refused at the bound, and a retrier interrupted between refusals", () => {
    const filling = resolveCommand(run(1, []), { op: "flood", extra: 0 })!
    expect(reached(run(1, []), filling)).toContain("admissionFilledToBound")
    expect(reached(run(1, []), filling)).not.toContain("refusedAtBound")
    const full = run(1, [filling])
    expect(reached(full, start("o66", "borrow"))).toEqual(["refusedAtBound"])
    expect(reached(full, start("o66", "borrow", { retry: true }))).toEqual(["refusalRetried"])
    const retrying = run(1, [filling, start("o66", "borrow", { retry: true })])
    expect(reached(retrying, { op: "interrupt", id: "o66" })).toEqual(["retrierInterrupted"])
    expect(reached(retrying, probeOperation(retrying))).toContain("retrierInterrupted")
  })

  it("marks a re-checkout behind waiters only when someone waits, and the freed slot going to the oldest", () => {
    const waiting = run(1, [start("o1", "transaction"), start("o2", "acquire")])
    expect(reached(waiting, { op: "release", id: "o1", reborrow: "o1r" })).toEqual(["queuedAtGate", "handoverToOldestWaiter", "recheckoutBehindWaiters", "transactionCommitted"])
    const alone = run(1, [start("o1", "transaction")])
    expect(reached(alone, { op: "release", id: "o1", reborrow: "o1r" })).toEqual(["grantedAtOnce", "transactionCommitted"])
  })

  it("names interrupts by phase: waiting, holding, mid-statement of a retried checkout, mid-COMMIT of an aborted transaction", () => {
    const state = run(1, [start("o1", "transaction", { failing: true }), start("o2", "acquire")])
    expect(reached(state, { op: "interrupt", id: "o2" })).toEqual(["waiterInterrupted"])
    expect(reached(state, { op: "interrupt", id: "o1" })).toEqual(["handoverToOldestWaiter", "holderInterrupted"])
    expect(reached(state, { op: "interruptCommit", id: "o1" })).toEqual(["handoverToOldestWaiter", "interruptedMidAbortedCommit"])
    expect(reached(run(1, []), { op: "interruptStatement", spec: spec("o1", "borrow", { retry: true }) }))
      .toEqual(["grantedAtOnce", "interruptedMidStatement", "retriedCheckoutInterruptedInFlight"])
  })

  it("tells a slot passed on to the next waiter from one handed to a lone waiter interrupted at the hand-over", () => {
    const two = run(1, [start("o1", "acquire"), start("o2", "acquire"), start("o3", "acquire")])
    expect(reached(two, { op: "handoverInterrupt", holder: "o1", waiter: "o2" })).toEqual(["waiterInterruptedAtHandover", "handoverSlotPassedOn"])
    const one = run(1, [start("o1", "acquire"), start("o2", "acquire")])
    expect(reached(one, { op: "handoverInterrupt", holder: "o1", waiter: "o2" })).toEqual(["waiterInterruptedAtHandover"])
  })

  it("marks a notify delivered to a holding listener, and one called inside a transaction", () => {
    const listening = run(2, [start("l1", "listen")])
    expect(reached(listening, start("n2", "notify"))).toEqual(["grantedAtOnce", "notifyDelivered"])
    expect(reached(run(2, []), start("n1", "notify"))).toEqual(["grantedAtOnce"])
    const inTransaction = run(2, [start("o1", "transaction")])
    expect(reached(inTransaction, start("n2", "notify", { inside: "o1" }))).toEqual(["grantedAtOnce", "notifyInsideTransaction"])
    expect(reached(inTransaction, start("b2", "borrow", { inside: "o1" }))).toEqual(["statementInsideTransaction"])
  })

  it("climbs the retry ladder to the capped delay and the admission after the drain", () => {
    const ladder = fc.sample(targetedUnit({ retryLadder: 1 }), { seed: 1, numRuns: 20 }).find((unit) => unit.some((command) => command.op === "drain"))!
    const climbed = situationsOfCommands(2, ladder)
    for (const situation of ["admissionFilledToBound", "refusalRetried", "retryRefusedAgain", "retryDelayCapped", "floodDrained", "retryAdmitted"]) expect(climbed).toContain(situation)
    // Five refusals (up to 150 ms) leave the delay below its cap.
    const short = situationsOfCommands(2, [ladder[0]!, ladder[1]!, { op: "advance", ms: 150 }])
    expect(short).toContain("retryRefusedAgain")
    expect(short).not.toContain("retryDelayCapped")
  })

  it("lists situations in table order, and each one credits a requirement coveredBy credits for the same step", () => {
    const credits: Readonly<Record<string, string>> = {
      refusedAtBound: "POL-008",
      refusalRetried: "POL-008",
      handoverSlotPassedOn: "POL-011",
      waiterInterrupted: "POL-011",
      holderInterrupted: "POL-011",
      retrierInterrupted: "POL-011",
      interruptedMidStatement: "POL-011",
      interruptedMidCommit: "POL-011",
      interruptedMidAbortedCommit: "POL-005",
      statementInsideTransaction: "POL-004",
      abortedCommitFails: "POL-005",
      notifyDelivered: "POL-006",
      notifyInsideTransaction: "POL-006",
      notifyLongChannelRejected: "POL-006",
      failedStatementNotRetried: "POL-012",
      recheckoutBehindWaiters: "POL-010"
    }
    for (const shape of [MODEL_SHAPE, ADMISSION_SHAPE]) {
      for (const scenario of fc.sample(poolScenario(shape), { seed: 5, numRuns: 100 })) {
        let state = poolModel.init({ maxConnections: scenario.maxConnections, nowMs: 0 })
        for (const command of [...scenario.commands, null]) {
          const operation = command === null ? probeOperation(state) : resolveCommand(state, command)
          if (operation === null) continue
          const after = poolModel.step(state, operation).state
          const situations = poolSituations(state, operation, after)
          expect(situations).toEqual(POOL_SITUATIONS.filter((situation) => situations.includes(situation)))
          const covered = coveredBy(state, after, operation)
          for (const situation of situations) if (credits[situation] !== undefined) expect(covered, `${situation} after ${operation.op}`).toContain(credits[situation])
          state = after
        }
      }
    }
  })

  it("decides a surface probe's situation from the probe as generated", () => {
    expect(surfaceSituations({ probe: "channel", entry: "notify", bytes: 64, wide: true })).toEqual(["channelOverByteLimitNotCharacters"])
    expect(surfaceSituations({ probe: "channel", entry: "listen", bytes: 64, wide: false })).toEqual([])
    expect(surfaceSituations({ probe: "channel", entry: "listen", bytes: 63, wide: true })).toEqual(["channelAtByteLimit"])
    expect(surfaceSituations({ probe: "multiplexGate", interrupt: "none" })).toEqual([])
    expect(surfaceSituations({ probe: "smoke", entry: "abortedCommit", inTransaction: false, failing: false })).toEqual(["clientAbortedCommit"])
  })
})
