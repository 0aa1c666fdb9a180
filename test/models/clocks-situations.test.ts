/**
 * The clocks coverage table's situations, decided from the model alone (`models/clocks/situations.ts`):
 * each hand-built timeline reaches the situations its rule is about and none it is not, and a race
 * counts by the kind it was realised as.
 */
import { describe, expect, it } from "vitest"
import { clocksModel, clocksSituations, type FaultedCommand, type ModelState, raceSituation, resultRaceSituation, scheduleRaceSituation } from "../../models/clocks/index.ts"

const T0 = 1_000_000

/** The situations of each command of `commands`, stepped in order from the initial state. */
const situationsOf = (commands: ReadonlyArray<FaultedCommand>): ReadonlyArray<ReadonlyArray<string>> => {
  let state: ModelState = clocksModel.init(T0)
  return commands.map((command) => {
    const operation = { command, atMs: state.nowMs }
    const outcome = clocksModel.step(state, operation)
    const found = clocksSituations(state, operation, outcome)
    state = outcome.state
    return found
  })
}

describe("clocks situations", () => {
  it("a schedule, its replay, the fire that completes the clock, and a re-armed fire after a rewind that finds it completed", () => {
    expect(situationsOf([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000 },
      { op: "rewind", exec: "e1", deferred: "t1:fired", keepRecords: false },
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }
    ])).toEqual([
      ["scheduleNew"],
      ["scheduleReplayed", "journalDuplicate"],
      ["fireCompletesClock"],
      ["rewindDroppingRecords"],
      ["scheduleReplayed", "armedPastDueFiresAtOnce", "rearmAfterRewind", "fireFindsClockCompleted", "journalDuplicate"]
    ])
  })

  it("first writer wins, reads before and after the first consumption, and a waiting run's token", () => {
    expect(situationsOf([
      { op: "deferredResult", exec: "e1", deferred: "sig" },
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 },
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 2 },
      { op: "deferredResult", exec: "e1", deferred: "sig" },
      { op: "deferredResult", exec: "e1", deferred: "sig" },
      { op: "deferredDoneIfWaiting", exec: "e2", deferred: "sig", value: 1, reason: "r", token: "k" },
      { op: "setWaiting", exec: "e2", reason: "r", token: "k" },
      { op: "deferredDoneIfWaiting", exec: "e2", deferred: "sig", value: 1, reason: "s", token: "k" },
      { op: "deferredDoneIfWaiting", exec: "e2", deferred: "sig", value: 1, reason: "r", token: "j" },
      { op: "deferredDoneIfWaiting", exec: "e2", deferred: "sig", value: 1, reason: "r", token: "k" }
    ])).toEqual([
      ["resultNone"],
      ["completeCreated"],
      ["completeExisting", "journalDuplicate"],
      ["resultFirstConsumption"],
      ["resultReplayed"],
      ["completeIfWaitingNotWaiting"],
      [],
      ["completeIfWaitingOtherReason"],
      ["completeIfWaitingOtherToken"],
      ["completeIfWaitingMatched"]
    ])
  })

  it("a fault names the phase it struck in, and a crash's restart recovers the fire it lost", () => {
    const [, crashed, refused] = situationsOf([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000, fault: { transaction: 1, phase: "inside" } },
      { op: "deferredDone", exec: "e2", deferred: "sig", value: 1, fault: { transaction: 1, phase: "commitRefused" } }
    ])
    // Nothing of the crashed fire stays; the restart's sweep finds the clock pending and past due, fires it, and wakes its completion.
    expect(crashed).toEqual(["armedPastDueFiresAtOnce", "fireCompletesClock", "sweepRearmsPending", "sweepWakesCompletion", "restartRecovers", "journalDuplicate", "faultInsideTransaction"])
    expect(refused).toEqual(["faultCommitRefused"])
  })

  it("a failed fire is retried and its retry succeeds", () => {
    const [, failed, retried] = situationsOf([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000, journalFault: 1 },
      { op: "advance", ms: 1_000 }
    ])
    expect(failed).toEqual(["fireFailedRetried", "durableEmitFailed"])
    expect(retried).toEqual(["fireCompletesClock", "fireRetrySucceeded"])
  })

  it("a race counts as it was realised: held, at once, or overlapped; none when it did not run", () => {
    let state: ModelState = clocksModel.init(T0)
    for (const command of [{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }, { op: "sweep", process: "B", withFlow: false }] as const) {
      state = clocksModel.step(state, { command, atMs: state.nowMs }).state
    }
    const raced = (lagMs: number) => clocksModel.step(state, { command: { op: "advance", ms: 2_000, race: { order: [1, 0], lagMs, overlap: lagMs === 0 } }, atMs: state.nowMs })
    expect(raceSituation(raced(100), false)).toEqual(["fireRaceHeld"])
    expect(raceSituation(raced(0), false)).toEqual(["fireRaceAtOnce"])
    expect(raceSituation(raced(0), true)).toEqual(["fireRaceOverlapped"])
    expect(raceSituation(clocksModel.step(state, { command: { op: "advance", ms: 2_000 }, atMs: state.nowMs }), false)).toEqual([])
  })

  it("a reading race counts as it was realised: held before its transaction, or inside it; none when it ran through or committed first", () => {
    const state = clocksModel.step(clocksModel.init(T0), { command: { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 }, atMs: T0 }).state
    const command = { op: "resultRace", exec: "e1", deferred: "sig", first: "A", lagMs: 1_000 } as const
    expect(resultRaceSituation(state, command, { held: true, overlapped: false, heldCommittedFirst: false, orderUnknown: false })).toEqual(["resultRaceHeld"])
    expect(resultRaceSituation(state, command, { held: true, overlapped: true, heldCommittedFirst: false, orderUnknown: false })).toEqual(["resultRaceOverlapped"])
    expect(resultRaceSituation(state, command, { held: true, overlapped: true, heldCommittedFirst: true, orderUnknown: false })).toEqual([])
    expect(resultRaceSituation(state, command, { held: true, overlapped: true, heldCommittedFirst: false, orderUnknown: true })).toEqual([])
    expect(resultRaceSituation(state, command, { held: false, overlapped: false, heldCommittedFirst: false, orderUnknown: false })).toEqual([])
    expect(resultRaceSituation(clocksModel.init(T0), command, { held: true, overlapped: true, heldCommittedFirst: false, orderUnknown: false })).toEqual([])
  })

  it("a scheduling race counts as it was realised: one after the other, overlapped, or none when unordered", () => {
    expect(scheduleRaceSituation({ ordered: true, overlapped: false })).toEqual(["scheduleRaceOneAfterOther"])
    expect(scheduleRaceSituation({ ordered: true, overlapped: true })).toEqual(["scheduleRaceOverlapped"])
    expect(scheduleRaceSituation({ ordered: false, overlapped: false })).toEqual([])
    expect(scheduleRaceSituation(null)).toEqual([])
  })
})
