/**
 * The alarms model against the reference page's edge cases E1-E10.
 */
import { describe, expect, it } from "vitest"
import { init, step } from "../../models/alarms/index.ts"
import { dispatch, dispatchValue, oneShot, runAll, schedule, scheduleEarlier, statusFor } from "./alarmsTestKit.ts"

describe("edge cases", () => {
  it("E1: a non-forward cursor inside a pass is a charged self-rearm, not a drop", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0, { progress: 5 }))).state
    const outcome = step(s0, dispatch(0, { "t/a": { writes: [{ kind: "scheduleAlarm", input: oneShot("a", 0, { progress: 3 }) }] } }))
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_000 })
    expect(outcome.situations).toContain("nonForwardCursorInPassCharged")
    expect(outcome.state.rows["effect-cf-alarm:t:a"]!.attemptsRow!.progress).toBe(5)
  })

  it("E2: one-shot acknowledgement forgets the cursor", () => {
    const { state } = runAll(init(), [schedule(0, oneShot("a", 0, { progress: 9 })), dispatch(0), schedule(5, oneShot("a", 50, { progress: 2 }))])
    expect(statusFor(state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 50, retryAtMs: null })
  })

  it("E3: a far-future self-rearm consumes budget but keeps its own deadline", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const outcome = step(s0, dispatch(0, { "t/a": { writes: [{ kind: "scheduleAlarm", input: oneShot("a", 36_000_000) }] } }))
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 36_000_000, retryAtMs: 1_000 })
    expect(outcome.state.rows["effect-cf-alarm:t:a"]!.wakeAtMs).toBe(36_000_000)
    expect(outcome.state.platformAlarmMs).toBe(36_000_000)
    expect(outcome.situations).toContain("farFutureSelfRearm")
  })

  it("E4: external scheduleAlarmEarlier with a later time keeps the deadline and resets the budget", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const failed = runAll(s0, [dispatch(0, { "t/a": { outcome: "fail" } }), dispatch(1_000, { "t/a": { outcome: "fail" } })]).state
    expect(statusFor(failed, "t", "a")!.attempts).toBe(2)
    const outcome = step(failed, scheduleEarlier(2_000, oneShot("a", 99_000)))
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 0, retryAtMs: null })
    expect(outcome.state.platformAlarmMs).toBe(0)
  })

  it("E5: rows replaced or cancelled earlier in the batch are skipped silently", () => {
    const s0 = runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("b", 1)), schedule(0, oneShot("c", 2))]).state
    const outcome = step(s0, dispatch(10, {
      "t/a": { writes: [{ kind: "cancelAlarm", ref: { tag: "t", id: "b" } }, { kind: "scheduleAlarm", input: oneShot("c", 5) }] }
    }))
    expect(dispatchValue(outcome)).toEqual({ handled: [{ id: "a", tag: "t", payload: { id: "a" }, scheduledAtMs: 0 }], failed: [], parked: [] })
    expect(outcome.situations).toContain("staleRowSkipped")
    // Which rows were skipped, for the check that none was handed to the handler (R22, before the order).
    expect(outcome.staleSkipped.map((id) => id.replace(/^.*:t:/, "t/"))).toEqual(["t/b", "t/c"])
    expect(statusFor(outcome.state, "t", "c")).toEqual({ attempts: 1, parked: false, runAtMs: 5, retryAtMs: 1_010 })
  })

  it("E6: handled lists an event whose acknowledgement was a no-op (handler cancelled its own row)", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0, { repeatEveryMs: 60_000 }))).state
    const outcome = step(s0, dispatch(0, { "t/a": { writes: [{ kind: "cancelAlarm", ref: { tag: "t", id: "a" } }] } }))
    expect(dispatchValue(outcome).handled.map((e) => e.id)).toEqual(["a"])
    expect(outcome.state.rows).toEqual({})
    expect(outcome.situations).toContain("acknowledgementNoOp")
  })

  it("E7: skip-and-advance-repeat deletes a one-shot", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const outcome = step(s0, dispatch(0, { "t/a": { outcome: "fail", onFailure: { kind: "skipAndAdvanceRepeat" } } }))
    expect(outcome.state.rows).toEqual({})
    expect(outcome.state.platformAlarmMs).toBeNull()
  })

  it("E8: the report's retryAt is max(run_at, retry_at); the status shows the raw retry_at", () => {
    const s0 = runAll(init({ configuration: { unchangedAttemptBudget: 1 } }), [schedule(0, oneShot("a", 0))]).state
    const outcome = step(s0, dispatch(0, { "t/a": { writes: [{ kind: "scheduleAlarm", input: oneShot("a", 7_200_000) }] } }))
    expect(outcome.reporterCalls).toEqual([{ attempts: 1, retryAtMs: 7_200_000, reporterFailed: false }])
    expect(dispatchValue(outcome).parked).toEqual([{ attempts: 1, retryAtMs: 7_200_000 }])
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: true, runAtMs: 7_200_000, retryAtMs: 3_600_000 })
  })

  it("E9: parking cancelled or progressed in the same transaction is never reported", () => {
    const s0 = runAll(init({ configuration: { unchangedAttemptBudget: 1 } }), [schedule(0, oneShot("a", 0, { progress: 1 }))]).state
    const cancelled = step(s0, dispatch(0, {
      "t/a": { writes: [{ kind: "transaction", mutations: [{ kind: "scheduleAlarm", input: oneShot("b", 0) }, { kind: "cancelAlarm", ref: { tag: "t", id: "b" } }] }] }
    }))
    expect(cancelled.reporterCalls).toEqual([])
    expect(cancelled.situations).toEqual(expect.arrayContaining(["newParkedEpisode", "parkReportSkipped"]))
    const progressed = step(s0, dispatch(0, {
      "t/a": {
        writes: [{
          kind: "transaction",
          mutations: [{ kind: "scheduleAlarm", input: oneShot("a", 10) }, { kind: "scheduleAlarm", input: oneShot("a", 20, { progress: 2 }) }]
        }]
      }
    }))
    expect(progressed.reporterCalls).toEqual([])
    expect(statusFor(progressed.state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 20, retryAtMs: null })
  })

  it("E10: leftover due rows keep the platform alarm at or before now", () => {
    const s0 = runAll(init(), [schedule(0, oneShot("a", 1)), schedule(0, oneShot("b", 2)), schedule(0, oneShot("c", 3))]).state
    const outcome = step(s0, dispatch(50, {}, { limit: 1 }))
    expect(outcome.state.platformAlarmMs).toBe(2)
    expect(outcome.state.platformAlarmMs! <= 50).toBe(true)
  })
})
