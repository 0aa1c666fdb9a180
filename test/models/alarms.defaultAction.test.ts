/**
 * The alarms model's default failure action (R20, R24): a dispatch that passes no `onFailure` (and then
 * possibly no options object), and an `onFailure` returning `null`, both retry with the base delay; the
 * model records which rows reached the handler (an undecodable row never does, R22).
 */
import { describe, expect, it } from "vitest"
import { init, step } from "../../models/alarms/index.ts"
import { dispatch, dispatchValue, oneShot, runAll, schedule, statusFor } from "./alarmsTestKit.ts"

describe("the default failure action", () => {
  it("ignores the scripted actions when no onFailure is passed: every failure retries with the base delay", () => {
    const { state } = runAll(init(), [schedule(0, oneShot("a", 0, { repeatEveryMs: 60_000 })), schedule(0, oneShot("b", 0))])
    const skip = { outcome: "fail" as const, onFailure: { kind: "skipAndAdvanceRepeat" as const } }
    const outcome = step(state, dispatch(10, { "t/a": skip, "t/b": skip }, { withoutOnFailure: true }))
    expect(dispatchValue(outcome).failed.map((failure) => failure.event!.id)).toEqual(["a", "b"])
    // Retried, not advanced: the repeat keeps its run_at, the one-shot is not deleted.
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_010 })
    expect(statusFor(outcome.state, "t", "b")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_010 })
    expect(outcome.situations).toContain("defaultFailureActionRetried")
    expect(outcome.handlerCalls).toEqual(["effect-cf-alarm:t:a", "effect-cf-alarm:t:b"])
  })

  it("retries with the base delay when onFailure returns null", () => {
    const { state } = runAll(init(), [schedule(0, oneShot("a", 0))])
    const outcome = step(state, dispatch(0, { "t/a": { outcome: "fail", onFailure: { kind: "returnsNull" } } }, { retryFailedAfterMs: 5_000 }))
    expect(dispatchValue(outcome).failed.map((failure) => failure.event!.id)).toEqual(["a"])
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 5_000 })
    expect(outcome.situations).not.toContain("defaultFailureActionRetried")
  })

  it("records no handler call for a step that dispatches nothing", () => {
    const outcome = step(init(), dispatch(0))
    expect(outcome.handlerCalls).toEqual([])
  })
})
