/**
 * C12 under a failed read (`readFails`): a sweep's or restart's read outside any transaction fails
 * before it runs. The model fails the sweep at that read, with what its passes did before it, and
 * weighs the two pass orders and a sweep that read again (`operationAlternatives`).
 */
import { describe, expect, it } from "vitest"
import { clockIdentity, clocksModel, clocksSituations, type FaultedCommand, type ModelState, type Operation, operationAlternatives, type StepOutcome } from "../../models/clocks/index.ts"

const T0 = 1_000_000

/** A clock due in 5 s and an unconsumed completion, then `last` with the model state before it. */
const stepAfterSetup = (last: FaultedCommand, options: Partial<Operation> = {}): { readonly before: ModelState; readonly outcome: StepOutcome; readonly operation: Operation } => {
  let state: ModelState = clocksModel.init(T0)
  for (const command of [{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 5_000 }, { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 }] as const) {
    state = clocksModel.step(state, { command, atMs: state.nowMs }).state
  }
  const operation: Operation = { command: last, atMs: state.nowMs, ...options }
  return { before: state, outcome: clocksModel.step(state, operation), operation }
}

const readFault = (statement: number) => ({ transaction: 1, phase: "readFails" as const, statement })

describe("a sweep whose read fails (C12)", () => {
  it("a restart whose first read fails re-arms nothing, wakes nothing and fails with the storage error", () => {
    const { before, outcome, operation } = stepAfterSetup({ op: "restart", fault: readFault(1) })
    expect(outcome.result).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(outcome.state.timers).toEqual([])
    expect(outcome.announced).toEqual([])
    expect(outcome.resumes).toEqual([])
    expect(clocksSituations(before, operation, outcome)).toContain("faultReadFailed")
    expect(outcome.rules.result[0]).toBe("C12")
    expect(outcome.rules.result).not.toContain("C4")
  })

  it("its second read fails after the clock pass: the clock is announced and armed, no completion is woken", () => {
    const { outcome } = stepAfterSetup({ op: "restart", fault: readFault(2) })
    expect(outcome.result).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(outcome.state.timers.map((timer) => timer.key)).toEqual(["e1/t1"])
    expect(outcome.announced).toEqual([clockIdentity("e1", "t1", 0)])
    expect(outcome.resumes).toEqual([])
  })

  it("with the wake pass first, the second read fails after the wakes: completions woken, no clock armed", () => {
    const { outcome } = stepAfterSetup({ op: "sweep", process: "A", withFlow: true, fault: readFault(2) }, { sweepWakesFirst: true })
    expect(outcome.result).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(outcome.announced).toEqual([])
    expect(outcome.resumes.map((resume) => resume.reason)).toEqual(["deferred"])
  })

  it("a read the sweep does not run (a sweep without a flow reads once) strikes nothing", () => {
    const faulted = stepAfterSetup({ op: "sweep", process: "A", withFlow: false, fault: readFault(2) }).outcome
    const plain = stepAfterSetup({ op: "sweep", process: "A", withFlow: false }).outcome
    expect(faulted.result).toEqual({ _tag: "Success", value: null })
    expect(faulted.state).toEqual(plain.state)
    expect(faulted.announced).toEqual(plain.announced)
  })

  it("is judged by the canonical pass order, the wake pass first, or the whole sweep read again", () => {
    const { before, operation } = stepAfterSetup({ op: "restart", fault: readFault(1) })
    const alternatives = operationAlternatives(before, operation)
    expect(alternatives).toHaveLength(3)
    expect(alternatives[1]!.sweepWakesFirst).toBe(true)
    expect(alternatives[2]!.command.fault).toBeUndefined()
    const whole = clocksModel.step(before, alternatives[2]!)
    expect(whole.result).toEqual({ _tag: "Success", value: null })
    expect(whole.state.timers.map((timer) => timer.key)).toEqual(["e1/t1"])
  })
})
