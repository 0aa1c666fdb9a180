/**
 * The alarms model is pure (never mutates its input) and describes operations and states readably.
 */
import { describe, expect, it } from "vitest"
import { describeOperation, describeState, init, observableState, predictStatuses, step } from "../../models/alarms/index.ts"
import { dispatch, oneShot, runAll, schedule, statusFor } from "./alarmsTestKit.ts"

const deepFreeze = <A>(value: A): A => {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

describe("purity and descriptions", () => {
  it("never mutates the input state", () => {
    const s0 = deepFreeze(runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("b", 0, { repeatEveryMs: 60_000 }))]).state)
    const snapshot = JSON.stringify(s0)
    const outcome = step(s0, dispatch(0, { "t/a": { outcome: "fail", writes: [{ kind: "scheduleAlarm", input: oneShot("c", 9) }] } }))
    expect(JSON.stringify(s0)).toBe(snapshot)
    expect(Object.keys(outcome.state.rows).sort()).toEqual(["effect-cf-alarm:t:a", "effect-cf-alarm:t:b", "effect-cf-alarm:t:c"])
  })

  it("resets the budget when the pass's own row moved past its cursor snapshot (sourceProgressed)", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0, { progress: 1 }))).state
    const outcome = step(s0, dispatch(0, {
      "t/a": { writes: [{ kind: "scheduleAlarm", input: oneShot("a", 10, { progress: 4 }) }, { kind: "scheduleAlarm", input: oneShot("a", 20) }] }
    }))
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 20, retryAtMs: null })
    expect(outcome.situations).toContain("sourceProgressedReset")
  })

  it("describes operations, states, statuses and the observable projection", () => {
    const { state } = runAll(init(), [schedule(0, oneShot("a", 5, { progress: 2 })), dispatch(5, { "t/a": { outcome: "fail" } })])
    expect(describeOperation(schedule(3, oneShot("a", 5, { progress: 2 })))).toBe("t=3 scheduleAlarm t/a at 5 cursor 2")
    expect(describeOperation(schedule(1_767_225_600_000, oneShot("a", 1_767_225_605_000)))).toBe("t=2026-01-01T00:00:00Z scheduleAlarm t/a at 2026-01-01T00:00:05Z")
    expect(describeState(state)).toBe(
      "effect-cf-alarm:t:a run_at=5 wake_at=1005 attempts=1 retry_at=1005 cursor=2\nplatform alarm: 1005; reports so far: 0"
    )
    expect(predictStatuses(state)).toEqual([
      {
        storageId: "effect-cf-alarm:t:a",
        status: { attempts: 1, parked: false, runAtMs: 5, retryAtMs: 1_005 },
        rules: ["R28", "R25", "R2"],
        why: "failure 1 of budget 8: retry_at = now + 1000 ms"
      }
    ])
    expect(observableState(state)).toEqual({
      rows: {
        "effect-cf-alarm:t:a": {
          tag: "t",
          alarmId: "a",
          runAtMs: 5,
          wakeAtMs: 1_005,
          repeatEveryMs: null,
          payloadText: "{\"id\":\"a\"}",
          hasAttemptsRow: true,
          attempts: 1,
          parked: false,
          retryAtMs: 1_005,
          progress: 2
        }
      },
      platformAlarmMs: 1_005
    })
  })
})
