/**
 * The appended alarms units (`properties/alarms/appended.ts`): what the model predicts for each (from
 * the reference rules alone), and that the units are appended after the scenario's own commands.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { init, step } from "../../models/alarms/index.ts"
import type { ModelState, Operation } from "../../models/alarms/index.ts"
import { modelOperation, nextWakeAfter, resolveCommand } from "../../properties/alarms/commands.ts"
import {
  declaredTag,
  finalKnownTags,
  illTypedCommands,
  parkLostCommands,
  retryCapCommands,
  type RetryCapDraw,
  retryFailedAfterCommands,
  type RetryFailedAfterDraw
} from "../../properties/alarms/appended.ts"
import { alarmsScenario } from "../../properties/alarms/arbitraries.ts"
import { ALARMS_SHAPES } from "../../properties/alarms/index.ts"
import type { AlarmsScenario, Command } from "../../properties/alarms/scenario.ts"
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
    // Later appended units (`readFault`, say) may follow it.
    const ending = scenarios.filter((scenario) =>
      scenario.commands.some((command, at) => {
        const unit = scenario.commands.slice(at, at + 4)
        return command.op === "configure" && command.configuration.unchangedAttemptBudget === 1 && unit[2]?.op === "dispatch" &&
          unit[2].fault?.phase === "afterCommit" && unit[2].fault.transaction === 1
      })
    )
    expect(ending.length).toBeGreaterThan(10)
    const modelScenarios = fc.sample(alarmsScenario(ALARMS_SHAPES.model), { seed: 7, numRuns: 200 })
    expect(modelScenarios.every((scenario) => scenario.commands.every((command) => !("fault" in command) || command.fault === undefined))).toBe(true)
  })
})

/** Epoch of the model runs below (any whole ms works: every unit's times are relative). */
const T0 = 1_000_000_000_000

/**
 * The commands of a fault-free scenario (or a unit alone) on the model: clock commands move the virtual
 * clock as the harness does, every other command is one model step. The situations reached, the last
 * status, and the clock at the end.
 */
const onModel = (commands: ReadonlyArray<Command>, start: Pick<AlarmsScenario, "configuration" | "knownTags"> = {}) => {
  let state: ModelState = init({ configuration: start.configuration ?? {}, ...(start.knownTags === undefined ? {} : { knownTags: start.knownTags }) })
  let nowMs = T0
  const situations = new Set<string>()
  let lastStatus: unknown
  for (const generated of commands) {
    const command = resolveCommand(generated, state, nowMs)
    if (command.op === "advanceBy") nowMs += command.ms
    else if (command.op === "advanceToNextWake") nowMs = nextWakeAfter(state, nowMs) ?? nowMs
    else {
      const outcome = step(state, modelOperation(command, nowMs)!)
      state = outcome.state
      for (const situation of outcome.situations) situations.add(situation)
      if (command.op === "status") lastStatus = outcome.result
    }
  }
  return { situations, lastStatus, nowMs }
}

const retryCap = (draw: Partial<RetryCapDraw>) =>
  onModel(retryCapCommands({ id: "1", parkedMs: 3_600_000, failures: 1, offsetMs: 0, base: "option", ...draw }, "a"))

const retryFailedAfter = (draw: Partial<RetryFailedAfterDraw>) =>
  onModel(retryFailedAfterCommands({ id: "2", minimumMs: 1_000, option: { offsetMs: 0 }, action: "none", own: { far: 1 }, failures: 1, ...draw }, "b"))

/** The retry delay of the last status, after the last failure (the clock stopped there). */
const lastDelayMs = (run: ReturnType<typeof onModel>): number => {
  const status = run.lastStatus as { readonly _tag: string; readonly value: { readonly retryAtMs: number; readonly parked: boolean } }
  expect(status._tag).toBe("Success")
  expect(status.value.parked).toBe(false)
  return status.value.retryAtMs - run.nowMs
}

describe("retryCap (R2, R25)", () => {
  it("a first failure's delay just below the parked delay is not capped; at it, or rounding onto or past it, is", () => {
    for (const base of ["option", "action"] as const) {
      expect(lastDelayMs(retryCap({ base, offsetMs: -1 }))).toBe(3_599_999)
      expect(retryCap({ base, offsetMs: -1 }).situations).not.toContain("retryDelayCapped")
      for (const offsetMs of [-0.5, 0, 0.5, 1]) {
        const run = retryCap({ base, offsetMs })
        expect(lastDelayMs(run)).toBe(3_600_000)
        expect(run.situations).toContain("retryDelayCapped")
      }
    }
  })

  it("the doubled base meets the cap at a later failure, from the option, the action or minimumRetryDelay", () => {
    for (const base of ["option", "action", "minimum"] as const) {
      // 1_800_000 * 2 = the cap; 1_799_999 * 2 below it; 900_001 * 4 past it (capped at 3_600_000).
      expect(lastDelayMs(retryCap({ base, failures: 2, offsetMs: 0 }))).toBe(3_600_000)
      expect(lastDelayMs(retryCap({ base, failures: 2, offsetMs: -1 }))).toBe(3_599_998)
      expect(lastDelayMs(retryCap({ base, failures: 3, offsetMs: 1 }))).toBe(3_600_000)
      expect(retryCap({ base, failures: 3, offsetMs: 1 }).situations).toContain("retryDelayCapped")
      expect(retryCap({ base, failures: 2, offsetMs: -1 }).situations).not.toContain("retryDelayCapped")
    }
  })

  it("a fractional parked delay is rounded up first (R1): no doubled whole base meets it exactly", () => {
    // ceil(3_600_000.5) = 3_600_001; bases 1_800_000 (below) and 1_800_001 (past it, capped).
    expect(lastDelayMs(retryCap({ parkedMs: 3_600_000.5, failures: 2, offsetMs: -0.5 }))).toBe(3_600_000)
    expect(lastDelayMs(retryCap({ parkedMs: 3_600_000.5, failures: 2, offsetMs: 0 }))).toBe(3_600_001)
    expect(retryCap({ parkedMs: 3_600_000.5, failures: 2, offsetMs: 0 }).situations).toContain("retryDelayCapped")
  })

  it("a minimumRetryDelay base starts at the second failure, so the configuration stays valid (R1: parked >= minimum)", () => {
    const commands = retryCapCommands({ id: "3", parkedMs: 3_600_000, failures: 1, offsetMs: 1, base: "minimum" }, "b")
    expect(commands[0]).toEqual({ op: "configure", configuration: { minimumRetryDelayMs: 1_800_001, parkedRetryDelayMs: 3_600_000, unchangedAttemptBudget: 8, minimumRepeatIntervalMs: 60_000 } })
    expect(commands.filter((command) => command.op === "dispatch")).toHaveLength(2)
  })
})

describe("retryFailedAfter (R20, R24)", () => {
  it("the option is rounded up and floored at the minimum retry delay, just below, at and above it", () => {
    const cases: ReadonlyArray<readonly [RetryFailedAfterDraw["option"], number]> = [
      [{ far: 0.5 }, 1_001],
      [{ far: 1 }, 1_001],
      [{ offsetMs: -1 }, 1_001],
      [{ offsetMs: -0.5 }, 1_001],
      [{ offsetMs: 0 }, 1_001],
      [{ offsetMs: 0.5 }, 1_002],
      [{ offsetMs: 1 }, 1_002]
    ]
    for (const action of ["noCallback", "none", "retry"] as const) {
      for (const [option, delayMs] of cases) {
        const run = retryFailedAfter({ minimumMs: 1_000.5, option, action })
        expect(lastDelayMs(run)).toBe(delayMs)
        expect(run.situations).toContain("retryFailedAfterUsed")
      }
    }
  })

  it("an action's own delay wins over the option, floored the same way; a second failure doubles the base (R2)", () => {
    expect(lastDelayMs(retryFailedAfter({ minimumMs: 4_000, option: { offsetMs: 1 }, action: "ownDelay", own: { far: 1 } }))).toBe(4_000)
    expect(lastDelayMs(retryFailedAfter({ minimumMs: 4_000, option: { far: 1 }, action: "ownDelay", own: { offsetMs: 0.5 } }))).toBe(4_001)
    expect(lastDelayMs(retryFailedAfter({ minimumMs: 4_000, option: { offsetMs: 0.5 }, failures: 2 }))).toBe(8_002)
    expect(retryFailedAfter({ action: "ownDelay" }).situations).toContain("retryFailedAfterUsed")
  })

  it("draws only positive delays (R20 reads \"finite and > 0\" on the option or on the floored delay: both agree there)", () => {
    for (const minimumMs of [1_000, 1_000.5, 4_000]) {
      for (const option of [{ far: 0.5 }, { far: 1 }, ...[-1, -0.5, 0, 0.5, 1].map((offsetMs) => ({ offsetMs }))]) {
        for (const command of retryFailedAfterCommands({ id: "1", minimumMs, option, action: "ownDelay", own: option, failures: 2 }, "a")) {
          if (command.op !== "dispatch") continue
          expect(command.options?.retryFailedAfterMs).toBeGreaterThan(0)
          const onFailure = command.handlers[0]!.script.onFailure
          if (onFailure?.kind === "retryAfter") expect(onFailure.retryFailedAfterMs).toBeGreaterThan(0)
        }
      }
    }
  })
})

describe("the retry units in generated scenarios", () => {
  it("fault-free scenarios reach retryDelayCapped and retryFailedAfterUsed often (7 and 6 of these 200 before the units, 29 and 37 with them)", () => {
    const scenarios = fc.sample(alarmsScenario(ALARMS_SHAPES.model), { seed: 11, numRuns: 200 })
    const reached = { retryDelayCapped: 0, retryFailedAfterUsed: 0 }
    for (const scenario of scenarios) {
      const { situations } = onModel(scenario.commands, scenario)
      if (situations.has("retryDelayCapped")) reached.retryDelayCapped++
      if (situations.has("retryFailedAfterUsed")) reached.retryFailedAfterUsed++
    }
    expect(reached.retryDelayCapped).toBeGreaterThanOrEqual(15)
    expect(reached.retryFailedAfterUsed).toBeGreaterThanOrEqual(15)
  })

  it("every draw of either unit reaches its situation or sits just below the cap (R2)", () => {
    let capped = 0
    let draws = 0
    for (const parkedMs of [3_600_000, 3_600_000.5, 7_200_000]) {
      for (const failures of [1, 2, 3]) {
        for (const offsetMs of [-1, -0.5, 0, 0.5, 1]) {
          for (const base of ["option", "action", "minimum"] as const) {
            draws++
            const run = onModel(retryCapCommands({ id: "1", parkedMs, failures, offsetMs, base }, "a"))
            const delayMs = lastDelayMs(run)
            if (run.situations.has("retryDelayCapped")) {
              capped++
              expect(delayMs).toBe(Math.ceil(parkedMs))
            } else {
              expect(delayMs).toBeLessThan(Math.ceil(parkedMs))
            }
          }
        }
      }
    }
    expect(capped / draws).toBeGreaterThan(0.6)
  })
})
