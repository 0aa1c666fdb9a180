/**
 * The alarms model's dispatch: order, limit, acknowledgement, repeats, failure actions, platform alarm.
 */
import { describe, expect, it } from "vitest"
import { init, step } from "../../models/alarms/index.ts"
import { cancel, dispatch, dispatchValue, oneShot, runAll, schedule, statusFor } from "./alarmsTestKit.ts"

describe("platform alarm after each transaction", () => {
  it("is the smallest wake_at, ties by storage id, absent when empty", () => {
    const { outcomes } = runAll(init(), [
      schedule(0, oneShot("a", 100)),
      schedule(0, oneShot("b", 50)),
      schedule(0, oneShot("c", 50)),
      cancel(0, "t", "b"),
      cancel(0, "t", "c"),
      cancel(0, "t", "a")
    ])
    expect(outcomes.map((outcome) => outcome.state.platformAlarmMs)).toEqual([100, 50, 50, 50, 100, null])
    expect(outcomes[2]!.predictions.find((p) => p.observable === "platformAlarm")!.why).toContain("effect-cf-alarm:t:b")
    expect(outcomes[5]!.predictions.find((p) => p.observable === "platformAlarm")).toMatchObject({ expected: null, rules: ["R6", "H6"] })
  })

  it("records the platform alarm after every transaction of a dispatch", () => {
    const { state } = runAll(init(), [schedule(0, oneShot("a", 10)), schedule(0, oneShot("b", 20)), schedule(0, oneShot("c", 500))])
    const outcome = step(state, dispatch(30, { "t/b": { outcome: "fail" } }))
    expect(outcome.transactions.map((tx) => [tx.label, tx.platformAlarmMs])).toEqual([
      ["acknowledge:effect-cf-alarm:t:a", 20],
      ["failure:effect-cf-alarm:t:b", 500],
      ["reconcile", 500]
    ])
    expect(statusFor(outcome.state, "t", "b")).toEqual({ attempts: 1, parked: false, runAtMs: 20, retryAtMs: 1_030 })
  })
})

describe("dispatch order and limit", () => {
  it("dispatches by (wake_at, storage_id) up to limit and leaves the platform alarm at or before now (E10)", () => {
    const { state } = runAll(init(), [
      schedule(0, oneShot("c", 10)),
      schedule(0, oneShot("b", 20)),
      schedule(0, oneShot("a", 20)),
      schedule(0, oneShot("d", 5_000))
    ])
    const outcome = step(state, dispatch(100, {}, { limit: 2 }))
    expect(dispatchValue(outcome).handled.map((event) => event.id)).toEqual(["c", "a"])
    expect(outcome.state.platformAlarmMs).toBe(20)
    expect(outcome.situations).toEqual(expect.arrayContaining(["limitLeftover", "dispatchedInOrder"]))
    const rest = step(outcome.state, dispatch(100))
    expect(dispatchValue(rest).handled.map((event) => event.id)).toEqual(["b"])
    expect(rest.state.platformAlarmMs).toBe(5_000)
  })

  it("never lets a backing-off or parked row block other due rows (H6)", () => {
    const { state } = runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("b", 1_500))])
    const first = step(state, dispatch(0, { "t/a": { outcome: "fail" } }))
    // a backs off to 1000; b's run_at 1500 is due at 1600, a's retry (1000) already passed
    const second = step(first.state, dispatch(1_600, { "t/a": { outcome: "fail" } }))
    expect(dispatchValue(second).failed.map((f) => f.event!.id)).toEqual(["a"])
    expect(dispatchValue(second).handled.map((e) => e.id)).toEqual(["b"])
    const third = step(second.state, dispatch(2_000, {}))
    expect(dispatchValue(third)).toEqual({ handled: [], failed: [], parked: [] })
    expect(third.state.platformAlarmMs).toBe(3_600)
  })

  it("applies the option and action failure delays, floored at the minimum retry delay", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const viaOption = step(s0, dispatch(0, { "t/a": { outcome: "fail" } }, { retryFailedAfterMs: 5_000 }))
    expect(statusFor(viaOption.state, "t", "a")!.retryAtMs).toBe(5_000)
    const floored = step(s0, dispatch(0, { "t/a": { outcome: "fail", onFailure: { kind: "retryAfter", retryFailedAfterMs: 10.5 } } }))
    expect(statusFor(floored.state, "t", "a")!.retryAtMs).toBe(1_000)
    const invalid = step(s0, dispatch(0, {}, { limit: 0 }))
    expect(invalid.result).toEqual({ _tag: "Failure", error: { _tag: "InvalidProcessDueAlarmsOptionsError", reason: "limit must be a positive safe integer" } })
    expect(invalid.state).toEqual(s0)
    expect(invalid.transactions).toEqual([])
    const badDelay = step(s0, dispatch(0, {}, { retryFailedAfterMs: 0 }))
    expect(badDelay.result._tag === "Failure" && badDelay.result.error._tag).toBe("InvalidProcessDueAlarmsOptionsError")
  })
})

describe("acknowledgement", () => {
  it("deletes a one-shot and forgets its cursor", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0, { progress: 7 }))).state
    const done = step(s0, dispatch(0))
    expect(done.state.rows).toEqual({})
    expect(done.state.platformAlarmMs).toBeNull()
    const replay = step(done.state, schedule(1, oneShot("a", 10, { progress: 7 })))
    expect(statusFor(replay.state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 10, retryAtMs: null })
  })

  it("advances a repeat to now + max(floor, interval) with a fresh budget and no catch-up", () => {
    const s0 = step(init(), schedule(0, oneShot("r", 0, { repeatEveryMs: 60_000 }))).state
    const failedTwice = runAll(s0, [dispatch(0, { "t/r": { outcome: "fail" } }), dispatch(1_000, { "t/r": { outcome: "fail" } })]).state
    expect(statusFor(failedTwice, "t", "r")!.attempts).toBe(2)
    const late = step(failedTwice, dispatch(1_000_000))
    expect(dispatchValue(late).handled).toEqual([{ id: "r", tag: "t", payload: { id: "r" }, scheduledAtMs: 0 }])
    expect(statusFor(late.state, "t", "r")).toEqual({ attempts: 0, parked: false, runAtMs: 1_060_000, retryAtMs: null })
    expect(late.situations).toEqual(expect.arrayContaining(["repeatAcknowledged", "repeatNoCatchUp"]))
    const raisedFloor = step(step(s0, { kind: "configure", configuration: { minimumRepeatIntervalMs: 120_000 } }).state, dispatch(0))
    expect(statusFor(raisedFloor.state, "t", "r")!.runAtMs).toBe(120_000)
  })

  it("keeps a handler's identical replacement (H1) and still lists the event as handled (E6)", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const same = step(s0, dispatch(0, { "t/a": { writes: [{ kind: "scheduleAlarm", input: oneShot("a", 0) }] } }))
    expect(dispatchValue(same).handled.map((e) => e.id)).toEqual(["a"])
    expect(statusFor(same.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_000 })
    expect(same.predictions.find((p) => p.observable === "handled[0]")!.rules).toEqual(["R22", "R23", "E6", "H1"])
  })

  it("names each failed entry's error: the handler's own, or that of the write that failed it (R22, R24)", () => {
    const s0 = runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("b", 0))]).state
    const badRef = { ...oneShot("x", 0), tag: "" }
    const outcome = step(s0, dispatch(0, { "t/a": { outcome: "fail" }, "t/b": { writes: [{ kind: "scheduleAlarm", input: badRef }] } }))
    expect(dispatchValue(outcome).failed.map((entry) => [entry.id, entry.causeTag])).toEqual([
      ["a", "ScriptedHandlerFailure"],
      ["b", "InvalidAlarmRefError"]
    ])
  })

  it("skip-and-advance-repeat deletes a one-shot (E7) and advances a repeat", () => {
    const s0 = runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("r", 0, { repeatEveryMs: 90_000 }))]).state
    const skip = { outcome: "fail" as const, onFailure: { kind: "skipAndAdvanceRepeat" as const } }
    const outcome = step(s0, dispatch(10, { "t/a": skip, "t/r": skip }))
    expect(dispatchValue(outcome).failed.map((f) => f.event!.id)).toEqual(["a", "r"])
    expect(statusFor(outcome.state, "t", "a")).toBeNull()
    expect(statusFor(outcome.state, "t", "r")).toEqual({ attempts: 0, parked: false, runAtMs: 90_010, retryAtMs: null })
    expect(outcome.situations).toEqual(expect.arrayContaining(["skipAndAdvanceOneShotDeleted", "skipAndAdvanceRepeat"]))
  })

  it("reschedules before re-raising a failing onFailure, which aborts the batch (H3)", () => {
    const s0 = runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("b", 0))]).state
    const outcome = step(s0, dispatch(0, { "t/a": { outcome: "fail", onFailure: { kind: "fails" } } }))
    expect(outcome.result).toEqual({ _tag: "Failure", error: { _tag: "OnFailureFailure", reason: "onFailure failed" } })
    expect(outcome.rules).toEqual(["R24", "H3"])
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_000 })
    expect(statusFor(outcome.state, "t", "b")).toEqual({ attempts: 0, parked: false, runAtMs: 0, retryAtMs: null })
    expect(outcome.transactions.map((tx) => tx.label)).toEqual(["failure:effect-cf-alarm:t:a"])
    expect(outcome.state.platformAlarmMs).toBe(0)
  })

  it("falls back to the base delay for an invalid action delay, then fails the call", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const outcome = step(s0, dispatch(0, { "t/a": { outcome: "fail", onFailure: { kind: "retryAfter", retryFailedAfterMs: -1 } } }, { retryFailedAfterMs: 3_000 }))
    expect(outcome.result._tag === "Failure" && outcome.result.error._tag).toBe("InvalidProcessDueAlarmsOptionsError")
    expect(statusFor(outcome.state, "t", "a")!.retryAtMs).toBe(3_000)
  })

  it("handles a redelivered platform alarm at the same instant without a second dispatch", () => {
    const s0 = runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("b", 0, { repeatEveryMs: 60_000 }))]).state
    const { outcomes } = runAll(s0, [dispatch(0, { "t/a": { outcome: "fail" } }), dispatch(0, { "t/a": { outcome: "fail" } })])
    expect(dispatchValue(outcomes[1]!)).toEqual({ handled: [], failed: [], parked: [] })
    expect(statusFor(outcomes[1]!.state, "t", "a")!.attempts).toBe(1)
  })
})
