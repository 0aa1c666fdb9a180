/**
 * The alarms model under faults and misuse: crashes, lost reports, invalid configuration, handles,
 * detached writes, reporter failure, legacy rows, typed definitions, and the requirement catalog.
 */
import { describe, expect, it } from "vitest"
import { init, operationAlternatives, SITUATION_RULES, step, UNENCODABLE_PAYLOAD_KEY } from "../../models/alarms/index.ts"
import { alarmRequirements, requirementsForRules } from "../../spec/alarms.ts"
import { catalog } from "../../spec/Requirement.ts"
import { dispatch, dispatchValue, oneShot, runAll, schedule, statusFor } from "./alarmsTestKit.ts"

describe("crashes and lost reports", () => {
  it("a crash inside a transaction commits nothing and keeps the platform alarm", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 100))).state
    const outcome = step(s0, { kind: "scheduleAlarm", nowMs: 0, input: oneShot("b", 10), fault: { transaction: 1, phase: "inside" } })
    expect(outcome.result).toEqual({ _tag: "Crashed", transaction: 1, phase: "inside" })
    expect(outcome.state.rows).toEqual(s0.rows)
    expect(outcome.state.platformAlarmMs).toBe(100)
  })

  it("a crash after commit loses the park report once and never duplicates it", () => {
    let state = runAll(init({ configuration: { unchangedAttemptBudget: 2 } }), [schedule(0, oneShot("a", 0))]).state
    state = step(state, dispatch(0, { "t/a": { outcome: "fail" } })).state
    const crashed = step(state, { ...dispatch(1_000, { "t/a": { outcome: "fail" } }), fault: { transaction: 1, phase: "afterCommit" } })
    expect(crashed.result).toEqual({ _tag: "Crashed", transaction: 1, phase: "afterCommit" })
    expect(crashed.reporterCalls).toEqual([])
    expect(crashed.situations).toContain("parkReportLost")
    expect(statusFor(crashed.state, "t", "a")).toEqual({ attempts: 2, parked: true, runAtMs: 0, retryAtMs: 3_601_000 })
    const later = step(crashed.state, dispatch(3_601_000, { "t/a": { outcome: "fail" } }))
    expect(later.reporterCalls).toEqual([])
    expect(later.state.reporterLog).toEqual([])
  })

  it("a failing setAlarm rolls the transaction back with StorageOperationError", () => {
    const outcome = step(init(), { kind: "scheduleAlarm", nowMs: 0, input: oneShot("a", 5), fault: { transaction: 1, phase: "setAlarmFails" } })
    expect(outcome.result).toEqual({ _tag: "Failure", error: { _tag: "StorageOperationError", reason: "setAlarmFailed" } })
    expect(outcome.state.rows).toEqual({})
  })

  it("a failing setAlarm is void when the transaction leaves the platform alarm as it was (R6 fixes the value, not the write)", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 5))).state
    const outcome = step(s0, { kind: "scheduleAlarm", nowMs: 0, input: oneShot("b", 9), fault: { transaction: 1, phase: "setAlarmFails" } })
    expect(outcome.faultVoided).toBe(true)
    expect(outcome.result._tag).toBe("Success")
    expect(outcome.state.platformAlarmMs).toBe(5)
  })

  it("a dispatch with both the configuration and the options invalid may report either (no rule orders them)", () => {
    const state = init({ configuration: { unchangedAttemptBudget: 0 } })
    const both = { kind: "processDueAlarms", nowMs: 0, options: { limit: 0 } } as const
    const [canonical, optionsFirst, ...rest] = operationAlternatives(state, both)
    expect(rest).toEqual([])
    expect(step(state, canonical!).result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidScheduleConfigurationError" } })
    const reported = step(state, optionsFirst!)
    expect(reported.result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidProcessDueAlarmsOptionsError" } })
    expect(reported.situations).toContain("invalidOptionsRejected")
    expect(reported.situations).not.toContain("invalidConfigurationRejected")
    expect(operationAlternatives(state, { kind: "processDueAlarms", nowMs: 0 })).toHaveLength(1)
    expect(operationAlternatives(init(), both)).toHaveLength(1)
  })

  it("a refused commit rolls back rows and platform alarm, sends no park report, fails with StorageOperationError, and the next call sees the old state", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 100))).state
    const refused = step(s0, { kind: "scheduleAlarm", nowMs: 0, input: oneShot("b", 10), fault: { transaction: 1, phase: "commitRefused" } })
    expect(refused.result).toEqual({ _tag: "Failure", error: { _tag: "StorageOperationError", reason: "commitRefused" } })
    expect(refused.state.rows).toEqual(s0.rows)
    expect(refused.state.platformAlarmMs).toBe(100)
    expect(refused.state.configuration).toEqual(s0.configuration)
    expect(refused.transactions.map((entry) => entry.outcome)).toEqual(["commitRefused"])
    expect(refused.situations).toContain("commitRefusedRolledBack")
    // The same call again commits as if the refused one never happened.
    const again = step(refused.state, schedule(0, oneShot("b", 10)))
    expect(again.state.platformAlarmMs).toBe(10)

    // Budget 1: the failure write of the first dispatch parks the alarm; refused, it reports nothing and aborts.
    const p0 = runAll(init({ configuration: { unchangedAttemptBudget: 1 } }), [schedule(0, oneShot("p", 0))]).state
    const parking = step(p0, { ...dispatch(0, { "t/p": { outcome: "fail" } }), fault: { transaction: 1, phase: "commitRefused" } })
    expect(parking.result).toEqual({ _tag: "Failure", error: { _tag: "StorageOperationError", reason: "commitRefused" } })
    expect(parking.reporterCalls).toEqual([])
    expect(parking.situations).toContain("refusedParkNotReported")
    expect(statusFor(parking.state, "t", "p")).toEqual(statusFor(p0, "t", "p"))
    // The next dispatch parks it and reports it, once.
    const next = step(parking.state, dispatch(0, { "t/p": { outcome: "fail" } }))
    expect(next.reporterCalls).toHaveLength(1)
  })

  it("a failed statement rolls back like a refused commit; where the closure fails on its own the fault is void", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 100))).state
    const failed = step(s0, { kind: "scheduleAlarm", nowMs: 0, input: oneShot("b", 10), fault: { transaction: 1, phase: "statementFails", statement: 5 } })
    expect(failed.result).toEqual({ _tag: "Failure", error: { _tag: "StorageOperationError", reason: "statementFailed" } })
    expect(failed.state.rows).toEqual(s0.rows)
    expect(failed.state.platformAlarmMs).toBe(100)
    expect(failed.transactions.map((entry) => entry.outcome)).toEqual(["statementFailed"])
    expect(failed.situations).toContain("statementFailedRolledBack")
    expect(failed.faultVoided).toBe(false)

    // Which error comes first (the statement's or the closure's own) depends on the implementation's
    // statement order: the model voids the fault and predicts the closure's own failure.
    const own = step(s0, {
      kind: "transaction",
      nowMs: 0,
      mutations: [{ kind: "scheduleAlarm", input: oneShot("b", 10) }],
      closureFails: true,
      fault: { transaction: 1, phase: "statementFails", statement: 1 }
    })
    expect(own.faultVoided).toBe(true)
    expect(own.result).toEqual(step(s0, { kind: "transaction", nowMs: 0, mutations: [{ kind: "scheduleAlarm", input: oneShot("b", 10) }], closureFails: true }).result)
    expect(own.state.rows).toEqual(s0.rows)
  })

  it("a refused acknowledgement aborts the batch: the event is not handled and later rows are not dispatched", () => {
    const s0 = runAll(init(), [schedule(0, oneShot("a", 0)), schedule(0, oneShot("b", 1))]).state
    const outcome = step(s0, { ...dispatch(5), fault: { transaction: 1, phase: "commitRefused" } })
    expect(outcome.result).toEqual({ _tag: "Failure", error: { _tag: "StorageOperationError", reason: "commitRefused" } })
    expect(outcome.handlerCalls).toEqual(["effect-cf-alarm:t:a"])
    expect(outcome.transactions.map((entry) => `${entry.label} ${entry.outcome}`)).toEqual(["acknowledge:effect-cf-alarm:t:a commitRefused"])
    expect(outcome.state.rows).toEqual(s0.rows)
  })

  it("a rebuilt service recaptures the configuration defaults", () => {
    const s0 = init({ configuration: { unchangedAttemptBudget: 2 } })
    const changed = step(s0, { kind: "configure", configuration: {} }).state
    expect(changed.configuration).toEqual({ captured: { unchangedAttemptBudget: 2 }, ambient: {} })
    const rebuilt = step(changed, { kind: "rebuildService" }).state
    expect(rebuilt.configuration).toEqual({ captured: {}, ambient: {} })
  })
})

describe("rejections commit nothing", () => {
  it("rejects an invalid configuration before anything commits; cancel needs no configuration", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 100))).state
    const bad = step(s0, { kind: "configure", configuration: { parkedRetryDelayMs: 1_000 } }).state
    const outcome = step(bad, { kind: "transaction", nowMs: 0, mutations: [{ kind: "cancelAlarm", ref: { tag: "t", id: "a" } }, { kind: "scheduleAlarm", input: oneShot("b", 1) }] })
    expect(outcome.result._tag === "Failure" && outcome.result.error._tag).toBe("InvalidScheduleConfigurationError")
    expect(outcome.state.rows).toEqual(s0.rows)
    expect(outcome.state.platformAlarmMs).toBe(100)
    expect(step(bad, dispatch(1_000)).result._tag === "Failure").toBe(true)
    expect(step(bad, { kind: "cancelAlarm", nowMs: 0, ref: { tag: "t", id: "a" } }).state.rows).toEqual({})
  })

  it("validates in order: ref, repeat, payload, progress", () => {
    const tagOf = (input: Parameters<typeof oneShot>[2] & { id?: string }) => {
      const outcome = step(init(), schedule(0, { ...oneShot(input.id ?? "a", 0), ...input }))
      return outcome.result._tag === "Failure" ? outcome.result.error._tag : "Success"
    }
    expect(tagOf({ id: "", repeatEveryMs: 1 })).toBe("InvalidAlarmRefError")
    expect(tagOf({ repeatEveryMs: 59_999, payload: { [UNENCODABLE_PAYLOAD_KEY]: true } })).toBe("InvalidRepeatEveryError")
    expect(tagOf({ payload: [{ [UNENCODABLE_PAYLOAD_KEY]: 1 }], progress: -1 })).toBe("InvalidAlarmPayloadError")
    expect(tagOf({ progress: 1.5 })).toBe("InvalidAlarmRefError")
    expect(tagOf({ repeatEveryMs: 60_000.2 })).toBe("Success")
    expect(tagOf({ runAtMs: 1.5 })).toBe("InvalidAlarmRefError")
    expect(tagOf({ progress: 2 ** 53 })).toBe("InvalidAlarmRefError")
    expect(step(init(), schedule(0, oneShot("a", 0, { repeatEveryMs: 60_000.2 }))).state.rows["effect-cf-alarm:t:a"]!.repeatEveryMs).toBe(60_001)
  })

  it("rejects handles used off their fiber or after their transaction, and a closure failure rolls back", () => {
    const misuse = step(init(), {
      kind: "transaction",
      nowMs: 0,
      mutations: [{ kind: "scheduleAlarm", input: oneShot("a", 5), misuse: "forkedFiber" }, { kind: "scheduleAlarm", input: oneShot("b", 6) }, { kind: "cancelAlarm", ref: { tag: "t", id: "b" }, misuse: "afterTransaction" }]
    })
    expect(misuse.result).toEqual({
      _tag: "Success",
      value: { mutations: [{ _tag: "Failure", error: { _tag: "StorageOperationError", reason: "inactiveHandle" } }, { _tag: "Success" }, { _tag: "Failure", error: { _tag: "StorageOperationError", reason: "inactiveHandle" } }] }
    })
    expect(Object.keys(misuse.state.rows)).toEqual(["effect-cf-alarm:t:b"])
    const failing = step(init(), { kind: "transaction", nowMs: 0, mutations: [{ kind: "scheduleAlarm", input: oneShot("a", 5) }], closureFails: true })
    expect(failing.result).toEqual({ _tag: "Failure", error: { _tag: "ClosureFailure", reason: "the closure failed" } })
    expect(failing.state.rows).toEqual({})
    expect(failing.state.platformAlarmMs).toBeNull()
  })

  it("rejects a schedule forked by a handler after its pass ended (H4)", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const outcome = step(s0, dispatch(0, { "t/a": { forkedWrite: { kind: "scheduleAlarm", input: oneShot("z", 0) } } }))
    expect(outcome.forkedWrites).toEqual([{ ok: false, error: { _tag: "StorageOperationError", reason: "detachedWork" }, saysPassEnded: true }])
    expect(outcome.state.rows).toEqual({})
    expect(outcome.predictions.find((p) => p.observable === "forkedWrite[0]")!.rules).toEqual(["R9", "H4"])
  })
})

describe("reporter, legacy rows and typed definitions", () => {
  it("swallows a failing reporter", () => {
    const s0 = runAll(init({ configuration: { unchangedAttemptBudget: 1 } }), [schedule(0, oneShot("a", 0))]).state
    const outcome = step(s0, { ...dispatch(0, { "t/a": { outcome: "fail" } }), reporterFails: true })
    expect(dispatchValue(outcome).parked).toEqual([{ attempts: 1, retryAtMs: 3_600_000 }])
    expect(outcome.reporterCalls).toEqual([{ attempts: 1, retryAtMs: 3_600_000, reporterFailed: true }])
  })

  it("fires rows written in the older layout before attempt tracking after migration", () => {
    const s0 = init({ legacyRows: [{ tag: "t", id: "old", runAtMs: 10, payloadText: "{\"v\":1}" }, { tag: "t", id: "bad", runAtMs: 20, payloadText: "{" }] })
    expect(s0.platformAlarmMs).toBe(10)
    expect(statusFor(s0, "t", "old")).toEqual({ attempts: 0, parked: false, runAtMs: 10, retryAtMs: null })
    const outcome = step(s0, dispatch(30))
    expect(dispatchValue(outcome)).toEqual({ handled: [{ id: "old", tag: "t", payload: { v: 1 }, scheduledAtMs: 10 }], failed: [{ tag: "t", id: "bad", event: null, causeTag: "StoredAlarmDecodeError" }], parked: [] })
    expect(statusFor(outcome.state, "t", "bad")).toEqual({ attempts: 1, parked: false, runAtMs: 20, retryAtMs: 1_030 })
    expect(outcome.situations).toEqual(expect.arrayContaining(["legacyRowFired", "undecodablePayloadFailed"]))
  })

  it("migrates rows of layout (b) with their attempt state: wake = max(run_at, retry_at ?? run_at)", () => {
    const s0 = init({
      legacyRows: [
        { tag: "t", id: "none", runAtMs: 0, payloadText: "1" },
        { tag: "t", id: "backoff", runAtMs: 0, payloadText: "2", attempts: { revision: "r1", attempts: 3, parked: false, retryAtMs: 4_000, progress: 2 } },
        { tag: "t", id: "parked", runAtMs: -10_000, payloadText: "3", attempts: { revision: "r2", attempts: 8, parked: true, retryAtMs: 3_600_000, progress: -1 } },
        { tag: "t", id: "late", runAtMs: 20_000, payloadText: "4", attempts: { revision: "r3", attempts: 1, parked: false, retryAtMs: 1_000, progress: -1 } }
      ]
    })
    expect(Object.fromEntries(Object.values(s0.rows).map((row) => [row.alarmId, row.wakeAtMs]))).toEqual({ none: 0, backoff: 4_000, parked: 3_600_000, late: 20_000 })
    expect(s0.platformAlarmMs).toBe(0)
    expect(statusFor(s0, "t", "none")).toEqual({ attempts: 0, parked: false, runAtMs: 0, retryAtMs: null })
    expect(statusFor(s0, "t", "backoff")).toEqual({ attempts: 3, parked: false, runAtMs: 0, retryAtMs: 4_000 })
    expect(statusFor(s0, "t", "parked")).toEqual({ attempts: 8, parked: true, runAtMs: -10_000, retryAtMs: 3_600_000 })
    // The stored cursor survives: a replayed one from outside a pass writes nothing (R11).
    const replay = step(s0, schedule(0, { tag: "t", id: "backoff", payload: 9, runAtMs: 50, progress: 2 }))
    expect(replay.state.rows).toEqual(s0.rows)
    // Due at 4 s: the backing-off row fails again (attempts 4, +8 s); the parked one is not due yet.
    const failed = step(s0, dispatch(4_000, { "t/backoff": { outcome: "fail" } }))
    expect(dispatchValue(failed).handled.map((event) => event.id)).toEqual(["none"])
    expect(statusFor(failed.state, "t", "backoff")).toEqual({ attempts: 4, parked: false, runAtMs: 0, retryAtMs: 12_000 })
    expect(failed.situations).toContain("legacyRowFired")
    // The parked row fails again at its retry: still parked, no new episode, no report.
    const parked = step(failed.state, dispatch(3_600_000, { "t/parked": { outcome: "fail" } }))
    expect(statusFor(parked.state, "t", "parked")).toEqual({ attempts: 8, parked: true, runAtMs: -10_000, retryAtMs: 7_200_000 })
    expect(parked.reporterCalls).toEqual([])
  })

  it("typed definitions reject unknown tags and fail stored unknown tags", () => {
    const s0 = init({ knownTags: ["t"], legacyRows: [{ tag: "gone", id: "x", runAtMs: 0, payloadText: "1" }] })
    const rejected = step(s0, schedule(0, { tag: "other", id: "a", payload: 1, runAtMs: 0 }))
    expect(rejected.result).toEqual({ _tag: "Failure", error: { _tag: "InvalidAlarmRefError", reason: "unknown alarm tag \"other\"" } })
    const outcome = step(s0, dispatch(0))
    expect(dispatchValue(outcome).failed).toEqual([{ tag: "gone", id: "x", event: { id: "x", tag: "gone", payload: 1, scheduledAtMs: 0 }, causeTag: "StoredAlarmDecodeError" }])
  })

  it("typed definitions check the payload before the configuration, like the upstream typed wrapper", () => {
    const s0 = init({ knownTags: ["t"], configuration: { unchangedAttemptBudget: 0 } })
    const typed = step(s0, schedule(0, { tag: "t", id: "a", payload: { $unencodable: true }, runAtMs: 0 }))
    expect(typed.result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidAlarmPayloadError" } })
    expect(typed.rules).toEqual(["R29", "R8"])
    const untyped = step(init({ configuration: { unchangedAttemptBudget: 0 } }), schedule(0, { tag: "t", id: "a", payload: { $unencodable: true }, runAtMs: 0 }))
    expect(untyped.result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidScheduleConfigurationError" } })
  })
})

describe("requirement catalog", () => {
  it("has unique ids, one entry per rule and edge case, and the named guarantees", () => {
    // 49 from the reference page's rules, edge cases and guarantees, plus the liveness pair ALM-050..051 (0.3.0)
    // and the race pair ALM-052..053 (0.5.0; ALM-053 needs independent connections and row locks), and
    // upstream's span names ALM-054 (0.7.0, citing the seed).
    expect(catalog(alarmRequirements).size).toBe(54)
    for (let rule = 1; rule <= 29; rule += 1) expect(requirementsForRules([`R${rule}`])[0]).toBe(`ALM-${String(rule).padStart(3, "0")}`)
    for (let edge = 1; edge <= 10; edge += 1) expect(requirementsForRules([`E${edge}`])[0]).toBe(`ALM-${String(29 + edge).padStart(3, "0")}`)
    expect(requirementsForRules(["R11"])).toEqual(["ALM-011", "ALM-040", "ALM-030", "ALM-052"])
    expect(alarmRequirements.every((r) => r.text.includes("MUST"))).toBe(true)
    expect(alarmRequirements.filter((r) => r.needs.length > 0).map((r) => `${r.id}:${r.needs.join("+")}`)).toEqual(["ALM-053:independentConnections+rowLocks"])
    expect(alarmRequirements.filter((r) => r.since !== "0.1.0").map((r) => `${r.id}@${r.since}`)).toEqual(["ALM-050@0.3.0", "ALM-051@0.3.0", "ALM-052@0.5.0", "ALM-053@0.5.0", "ALM-054@0.7.0"])
  })

  it("maps every situation to at least one requirement", () => {
    for (const rules of Object.values(SITUATION_RULES)) expect(requirementsForRules(rules).length).toBeGreaterThan(0)
  })
})
