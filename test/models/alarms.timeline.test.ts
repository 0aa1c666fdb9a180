/**
 * The alarms model against the reference page's default timeline and budget/cursor examples.
 */
import { describe, expect, it } from "vitest"
import { init, step } from "../../models/alarms/index.ts"
import { dispatch, dispatchValue, oneShot, runAll, schedule, scheduleEarlier, statusFor } from "./alarmsTestKit.ts"

const failing = { "t/a": { outcome: "fail" as const } }

/** Fails `a` `times` times, each at its platform alarm; returns the state and the dispatch outcomes. */
const failRepeatedly = (times: number, progress?: number) => {
  let state = step(init(), schedule(0, oneShot("a", 0, progress === undefined ? {} : { progress }))).state
  const outcomes = []
  for (let call = 0; call < times; call += 1) {
    const outcome = step(state, dispatch(state.platformAlarmMs!, failing))
    outcomes.push(outcome)
    state = outcome.state
  }
  return { state, outcomes }
}

describe("default timeline of an always-failing alarm", () => {
  it("backs off 1..64 s, parks at call 8 with one report, then retries hourly without reports", () => {
    const { state, outcomes } = failRepeatedly(10)
    const starts = [0, 1_000, 3_000, 7_000, 15_000, 31_000, 63_000, 127_000, 3_727_000, 7_327_000]
    const delays = outcomes.map((outcome, call) => outcome.state.platformAlarmMs! - starts[call]!)
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 3_600_000, 3_600_000, 3_600_000])
    expect(outcomes.map((outcome) => outcome.reporterCalls.length)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 0, 0])
    expect(outcomes[7]!.reporterCalls).toEqual([{ attempts: 8, retryAtMs: 3_727_000, reporterFailed: false }])
    expect(dispatchValue(outcomes[7]!).parked).toEqual([{ attempts: 8, retryAtMs: 3_727_000 }])
    expect(state.reporterLog).toHaveLength(1)
    // scheduledAt stays the original run_at on every retry (H2)
    expect(outcomes.map((outcome) => dispatchValue(outcome).failed[0]!.event!.scheduledAtMs)).toEqual(Array(10).fill(0))
    expect(statusFor(state, "t", "a")).toEqual({ attempts: 8, parked: true, runAtMs: 0, retryAtMs: 10_927_000 })
    expect(outcomes[7]!.situations).toContain("newParkedEpisode")
    expect(outcomes[7]!.predictions.find((p) => p.observable === "parked[0]")!.rules).toContain("R27")
  })

  it("attributes each retry to R25 and R2", () => {
    const { state } = failRepeatedly(3)
    const row = state.rows["effect-cf-alarm:t:a"]!
    expect(row.decidedBy.rules).toEqual(["R25", "R2"])
    expect(statusFor(state, "t", "a")).toEqual({ attempts: 3, parked: false, runAtMs: 0, retryAtMs: 7_000 })
  })
})

describe("progress cursor and budget", () => {
  it("drops an external replay whose cursor is <= the stored one (R11), also for scheduleAlarmEarlier", () => {
    const { state } = failRepeatedly(3, 5)
    const same = step(state, schedule(8_000, oneShot("a", 50_000, { progress: 5 })))
    expect(same.result).toEqual({ _tag: "Success", value: null })
    expect(same.rules).toEqual(["R11"])
    expect(same.situations).toEqual(["replayDrop", "platformAlarmSet"])
    expect(same.state.rows).toEqual(state.rows)
    expect(same.transactions).toEqual([{ ordinal: 1, label: "scheduleAlarm", outcome: "committed", platformAlarmMs: 7_000 }])
    const older = step(state, scheduleEarlier(8_000, oneShot("a", 1, { progress: 4 })))
    expect(older.rules).toEqual(["R11"])
    expect(statusFor(older.state, "t", "a")).toEqual({ attempts: 3, parked: false, runAtMs: 0, retryAtMs: 7_000 })
  })

  it("resets the budget on a strictly greater cursor", () => {
    const { state } = failRepeatedly(3, 5)
    const next = step(state, schedule(8_000, oneShot("a", 9_000, { progress: 6 })))
    expect(statusFor(next.state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 9_000, retryAtMs: null })
    expect(next.situations).toContain("budgetResetByGreaterCursor")
    expect(next.state.rows["effect-cf-alarm:t:a"]!.attemptsRow!.progress).toBe(6)
    expect(next.state.platformAlarmMs).toBe(9_000)
  })

  it("un-parks on external enrollment without a cursor", () => {
    const { state } = failRepeatedly(8)
    expect(statusFor(state, "t", "a")!.parked).toBe(true)
    const next = step(state, schedule(200_000, oneShot("a", 300_000)))
    expect(statusFor(next.state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 300_000, retryAtMs: null })
    expect(next.reporterCalls).toEqual([])
  })

  it("charges one attempt per pass however many schedules the handler makes", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const rearm = { kind: "scheduleAlarm" as const, input: oneShot("a", 5_000) }
    const other = { kind: "scheduleAlarm" as const, input: oneShot("b", 0) }
    const outcome = step(s0, dispatch(0, { "t/a": { writes: [rearm, rearm, other, rearm] } }))
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 5_000, retryAtMs: 1_000 })
    expect(statusFor(outcome.state, "t", "b")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_000 })
    expect(outcome.situations).toEqual(expect.arrayContaining(["chargedOncePerPass", "newIdInheritsSourceAttempts", "acknowledgementNoOp"]))
    expect(dispatchValue(outcome).handled.map((event) => event.id)).toEqual(["a"])
    // a handler that fails after rearming: the reschedule is skipped (already charged this pass)
    const failed = step(s0, dispatch(0, { "t/a": { writes: [rearm], outcome: "fail" } }))
    expect(statusFor(failed.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 5_000, retryAtMs: 1_000 })
    expect(failed.situations).toContain("failureRescheduleSkipped")
  })

  it("keeps a parked alarm parked after the budget is raised (H5), with no new report", () => {
    const { state } = failRepeatedly(8)
    const raised = step(state, { kind: "configure", configuration: { unchangedAttemptBudget: 20 } }).state
    const again = step(raised, dispatch(raised.platformAlarmMs!, failing))
    expect(statusFor(again.state, "t", "a")).toEqual({ attempts: 8, parked: true, runAtMs: 0, retryAtMs: 7_327_000 })
    expect(again.reporterCalls).toEqual([])
    expect(again.situations).toContain("parkedUnderRaisedBudget")
    const rearm = step(raised, dispatch(raised.platformAlarmMs!, { "t/a": { writes: [{ kind: "scheduleAlarm", input: oneShot("a", 0) }] } }))
    expect(statusFor(rearm.state, "t", "a")).toEqual({ attempts: 8, parked: true, runAtMs: 0, retryAtMs: 7_327_000 })
    expect(rearm.reporterCalls).toEqual([])
  })

  it("min-merges scheduleAlarmEarlier", () => {
    const { state, outcomes } = runAll(init(), [
      schedule(0, { tag: "t", id: "a", payload: "first", runAtMs: 100 }),
      scheduleEarlier(0, { tag: "t", id: "a", payload: "later", runAtMs: 200, repeatEveryMs: 60_000 })
    ])
    const row = state.rows["effect-cf-alarm:t:a"]!
    expect([row.runAtMs, row.payloadText, row.repeatEveryMs]).toEqual([100, "\"first\"", null])
    expect(outcomes[1]!.situations).toContain("earlierMinMergeKeptExisting")
    expect(outcomes[1]!.situations).not.toContain("earlierMinMergeTie")
    // At the boundary (`run_at <= requested`): the stored row's payload and repeat stay.
    const tie = step(state, scheduleEarlier(0, { tag: "t", id: "a", payload: "tied", runAtMs: 100, repeatEveryMs: 60_000 }))
    const tieRow = tie.state.rows["effect-cf-alarm:t:a"]!
    expect([tieRow.runAtMs, tieRow.payloadText, tieRow.repeatEveryMs]).toEqual([100, "\"first\"", null])
    expect(tie.situations).toEqual(expect.arrayContaining(["earlierMinMergeKeptExisting", "earlierMinMergeTie"]))
    const moved = step(state, scheduleEarlier(0, { tag: "t", id: "a", payload: "sooner", runAtMs: 50 })).state
    const movedRow = moved.rows["effect-cf-alarm:t:a"]!
    expect([movedRow.runAtMs, movedRow.payloadText, moved.platformAlarmMs]).toEqual([50, "\"sooner\"", 50])
    expect(movedRow.attemptsRow!.revision).not.toBe(row.attemptsRow!.revision)
  })

  it("forgets the cursor on cancel, so an old notice re-enrolls (E2)", () => {
    const { state } = runAll(init(), [
      schedule(0, oneShot("a", 100, { progress: 5 })),
      { kind: "cancelAlarm", nowMs: 1, ref: { tag: "t", id: "a" } },
      schedule(2, oneShot("a", 300, { progress: 3 }))
    ])
    expect(statusFor(state, "t", "a")).toEqual({ attempts: 0, parked: false, runAtMs: 300, retryAtMs: null })
    expect(state.rows["effect-cf-alarm:t:a"]!.attemptsRow!.progress).toBe(3)
  })
})
