/**
 * The appended alarms units (`properties/alarms/appended.ts`): what the model predicts for each (from
 * the reference rules alone), and that the units are appended after the scenario's own commands.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { init, step } from "../../models/alarms/index.ts"
import type { Operation } from "../../models/alarms/index.ts"
import { declaredTag, finalKnownTags, illTypedCommands, parkLostCommands } from "../../properties/alarms/appended.ts"
import { alarmsScenario } from "../../properties/alarms/arbitraries.ts"
import { ALARMS_SHAPES } from "../../properties/alarms/index.ts"
import type { Command, RefSpec } from "../../properties/alarms/scenario.ts"
import { dispatch, dispatchValue, oneShot, schedule, statusFor } from "../models/alarmsTestKit.ts"

const failureTag = (operation: Operation): unknown => {
  const result = step(init(), operation).result
  return result._tag === "Failure" ? result.error._tag : result._tag
}

describe("ill-typed inputs (R8, R24)", () => {
  it("a number tag or id is InvalidAlarmRefError and writes nothing (R8)", () => {
    const numberTag = { ...oneShot("a", 0), tag: 1 as unknown as string }
    const numberId = { ...oneShot("a", 0), id: 2 as unknown as string }
    for (const input of [numberTag, numberId]) {
      const outcome = step(init(), schedule(0, input))
      expect(failureTag(schedule(0, input))).toBe("InvalidAlarmRefError")
      expect(outcome.state.rows).toEqual({})
    }
  })

  it("a number tag or id is appended to scheduleAlarm or scheduleAlarmEarlier, never a ref to cancelAlarm or getAlarmStatus", () => {
    expect(illTypedCommands({ kind: "numberTag", id: "2", variant: true }, "a")).toEqual([
      { op: "schedule", earlier: true, input: { tag: 2, id: "2", payload: null, runInMs: 0 } }
    ])
    expect(illTypedCommands({ kind: "numberId", id: "3", variant: false }, "b")).toEqual([
      { op: "schedule", input: { tag: "b", id: 3, payload: null, runInMs: 0 } }
    ])
    // R8 decides refs for scheduling only: an upstream-shaped cancelAlarm(null) may fail with a TypeError.
    for (const kind of ["numberTag", "numberId", "unknownMode"] as const) {
      for (const command of illTypedCommands({ kind, id: "1", variant: false }, "a")) {
        if (command.op === "cancel" || command.op === "status") expect(typeof command.ref).toBe("object")
      }
    }
  })

  it("the model answers a null or string ref with InvalidAlarmRefError where it is asked (never generated)", () => {
    for (const ref of [null, "t:a"] as ReadonlyArray<unknown>) {
      expect(failureTag({ kind: "cancelAlarm", nowMs: 0, ref: ref as RefSpec })).toBe("InvalidAlarmRefError")
      expect(failureTag({ kind: "getAlarmStatus", ref: ref as RefSpec })).toBe("InvalidAlarmRefError")
    }
  })

  it("an onFailure object with an unknown mode reschedules with the base delay (R24, R25)", () => {
    const s0 = step(init(), schedule(0, oneShot("a", 0))).state
    const outcome = step(s0, dispatch(0, { "t/a": { outcome: "fail", onFailure: { kind: "unknownMode" } } }))
    expect(dispatchValue(outcome).failed).toHaveLength(1)
    expect(statusFor(outcome.state, "t", "a")).toEqual({ attempts: 1, parked: false, runAtMs: 0, retryAtMs: 1_000 })
  })
})

describe("parkLost (R27)", () => {
  it("parks on the dispatch's first transaction, which the unit crashes after its commit", () => {
    for (const parkedBy of ["failure", "selfRearm"] as const) {
      const commands = parkLostCommands({ parkedBy, id: "2", reporterFails: false }, "b")
      const dispatchCommand = commands.find((command): command is Extract<Command, { op: "dispatch" }> => command.op === "dispatch")!
      expect(dispatchCommand.fault).toEqual({ transaction: 1, phase: "afterCommit" })
      expect(commands[0]).toEqual({ op: "configure", configuration: { unchangedAttemptBudget: 1 } })
    }
  })

  it("picks a tag the final typed definitions declare", () => {
    const commands: ReadonlyArray<Command> = [{ op: "restart", reason: "restart", knownTags: ["b"] }, { op: "restart", reason: "eviction" }]
    expect(finalKnownTags(["a"], commands)).toEqual(["b"])
    expect(finalKnownTags(undefined, [])).toBeNull()
    for (const id of ["1", "2", "3"]) expect(declaredTag(["b"], id)).toBe("b")
    expect(new Set(["1", "2", "3"].map((id) => declaredTag(null, id)))).toEqual(new Set(["a", "b"]))
  })

  it("fault scenarios sometimes end with the unit, after their own commands", () => {
    const scenarios = fc.sample(alarmsScenario(ALARMS_SHAPES.faults), { seed: 7, numRuns: 200 })
    const ending = scenarios.filter((scenario) => {
      const last = scenario.commands.slice(-4)
      return last[0]?.op === "configure" && last[2]?.op === "dispatch" && last[2].fault?.phase === "afterCommit" && last[2].fault.transaction === 1
    })
    expect(ending.length).toBeGreaterThan(10)
    const modelScenarios = fc.sample(alarmsScenario(ALARMS_SHAPES.model), { seed: 7, numRuns: 200 })
    expect(modelScenarios.every((scenario) => scenario.commands.every((command) => !("fault" in command) || command.fault === undefined))).toBe(true)
  })
})
