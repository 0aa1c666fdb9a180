/**
 * The alarms model's typed definitions (R29) and its boundary situations: a redeploy with other
 * definitions makes stored rows of a dropped tag fail on dispatch; the typed checks come before the
 * handle's confinement; two invalid inputs and the cross-field configuration check are named.
 */
import { describe, expect, it } from "vitest"
import { init, step } from "../../models/alarms/index.ts"
import { dispatch, dispatchValue, oneShot, runAll, schedule, statusFor } from "./alarmsTestKit.ts"

describe("typed definitions (R29)", () => {
  it("a redeploy without a tag makes its stored rows fail on dispatch, with backoff", () => {
    const { state } = runAll(init({ knownTags: ["t", "u"] }), [
      schedule(0, oneShot("a", 0)),
      { kind: "rebuildService", knownTags: ["u"] }
    ])
    expect(state.knownTags).toEqual(["u"])
    const outcome = step(state, dispatch(0))
    expect(outcome.situations).toContain("unknownStoredTagFailed")
    expect(dispatchValue(outcome).failed.map((entry) => entry.event?.id)).toEqual(["a"])
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_000 })
  })

  it("a redeploy narrowing a tag to numbers fails its stored rows of other payloads on dispatch, and refuses such schedules", () => {
    const { state } = runAll(init({}), [
      schedule(0, { ...oneShot("a", 0), payload: "7" }),
      schedule(0, { ...oneShot("b", 0), payload: 7 }),
      { kind: "rebuildService", knownTags: ["t"], numberTags: ["t"] }
    ])
    expect(state.numberTags).toEqual(["t"])
    const refused = step(state, schedule(0, { ...oneShot("c", 0), payload: "7" }))
    expect(refused.result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidAlarmPayloadError" } })
    expect(refused.rules).toEqual(["R29", "R8"])
    expect(step(state, schedule(0, { ...oneShot("c", 0), payload: 8 })).result._tag).toBe("Success")
    const outcome = step(state, dispatch(0))
    expect(outcome.situations).toContain("narrowedPayloadFailed")
    // The row whose payload no longer decodes fails before any handler runs; the number is handled.
    expect(dispatchValue(outcome).failed.map((entry) => [entry.event?.id, entry.causeTag])).toEqual([["a", "StoredAlarmDecodeError"]])
    expect(dispatchValue(outcome).handled.map((event) => event.id)).toEqual(["b"])
    expect(outcome.handlerCalls).toEqual(["effect-cf-alarm:t:b"])
    // A redeploy with definitions and no narrowing widens the tag again.
    expect(step(state, { kind: "rebuildService", knownTags: ["t"] }).state.numberTags).toEqual([])
  })

  it("a rebuild without knownTags keeps the definitions; null switches to the untyped scheduler", () => {
    const typed = step(init({ knownTags: ["u"] }), { kind: "rebuildService" }).state
    expect(typed.knownTags).toEqual(["u"])
    const untyped = step(typed, { kind: "rebuildService", knownTags: null }).state
    expect(untyped.knownTags).toBeNull()
    expect(step(untyped, schedule(0, oneShot("a", 0))).result._tag).toBe("Success")
  })

  it("a misused typed handle rejects an undeclared tag before the confinement check (R29 before R5)", () => {
    const outcome = step(init({ knownTags: ["u"] }), {
      kind: "transaction",
      nowMs: 0,
      mutations: [{ kind: "scheduleAlarm", input: oneShot("a", 0), misuse: "forkedFiber" }, { kind: "cancelAlarm", ref: { tag: "u", id: "a" }, misuse: "afterTransaction" }]
    })
    expect(outcome.result).toEqual({
      _tag: "Success",
      value: {
        mutations: [
          { _tag: "Failure", error: { _tag: "InvalidAlarmRefError", reason: "unknown alarm tag \"t\"" } },
          { _tag: "Failure", error: { _tag: "StorageOperationError", reason: "inactiveHandle" } }
        ]
      }
    })
    expect(outcome.situations).toEqual(expect.arrayContaining(["unknownTagRejected", "inactiveHandleRejected"]))
  })
})

describe("boundary situations", () => {
  it("the cross-field check failing alone is named", () => {
    const outcome = step(init({ configuration: { minimumRetryDelayMs: 3_600_001 } }), schedule(0, oneShot("a", 0)))
    expect(outcome.result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidScheduleConfigurationError" } })
    expect(outcome.situations).toContain("crossFieldConfigurationRejected")
  })

  it("two invalid inputs: the validation order decides (ref before repeat)", () => {
    const outcome = step(init(), schedule(0, { tag: "t", id: "", payload: null, runAtMs: 0, repeatEveryMs: 1 }))
    expect(outcome.result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidAlarmRefError" } })
    expect(outcome.situations).toContain("twoInvalidInputsRejected")
    expect(outcome.situations).not.toContain("invalidRepeatRejected")
  })

  it("a repeat at the floor is accepted; half a ms below is rejected; half above is rounded up", () => {
    const at = step(init(), schedule(0, oneShot("a", 0, { repeatEveryMs: 60_000 })))
    expect(at.situations).toContain("repeatAtFloorAccepted")
    const below = step(init(), schedule(0, oneShot("a", 0, { repeatEveryMs: 59_999.5 })))
    expect(below.result).toMatchObject({ _tag: "Failure", error: { _tag: "InvalidRepeatEveryError" } })
    const above = step(init(), schedule(0, oneShot("a", 0, { repeatEveryMs: 60_000.5 })))
    expect(above.situations).toContain("fractionalDurationRoundedUp")
    expect(above.situations).not.toContain("repeatAtFloorAccepted")
    expect(above.state.rows["effect-cf-alarm:t:a"]!.repeatEveryMs).toBe(60_001)
  })

  it("a backoff reaching the parked cap before parking is named; a row due exactly now too", () => {
    const { outcomes } = runAll(init({ configuration: { minimumRetryDelayMs: 1_800_000 } }), [
      schedule(0, oneShot("a", 0)),
      dispatch(0, { "t/a": { outcome: "fail" } }),
      dispatch(1_800_000, { "t/a": { outcome: "fail" } })
    ])
    expect(outcomes[1]!.situations).toContain("dueAtExactWake")
    expect(outcomes[1]!.situations).not.toContain("retryDelayCapped")
    expect(outcomes[2]!.situations).toContain("retryDelayCapped")
    expect(statusFor(outcomes[2]!.state, "t", "a")).toEqual({ attempts: 2, parked: false, runAtMs: 0, retryAtMs: 5_400_000 })
  })
})
