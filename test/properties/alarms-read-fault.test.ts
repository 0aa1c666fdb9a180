/**
 * A read outside any transaction that fails (`readFails`, `harness/Faults.ts`): the alarms scheduler
 * reads outside a transaction to migrate, to select the due rows (R21), to re-read each row (R22), to
 * re-read a parked row before its report (R27) and to read a status (R28). The appended `readFault`
 * unit (`properties/alarms/appended.ts`) fails the n-th such read of a dispatch or a status; the call
 * must fail with `StorageOperationError`, keeping what committed before. The model cannot know which
 * of its places the implementation's n-th read falls on, so the property weighs each
 * (`struckReadAlternatives`). Implementations that swallow the error are bound from outside and caught.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { pluginSuite } from "../../harness/SubjectPlugin.ts"
import { alarmsModel, struckReadAlternatives } from "../../models/alarms/index.ts"
import { readFaultCommands } from "../../properties/alarms/appended.ts"
import { alarmsPlugin } from "../../properties/alarms/plugin.ts"
import type { AlarmsScenario } from "../../properties/alarms/scenario.ts"
import { type AlarmsImplementation, type AlarmScheduler, StorageOperationError } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { propertyById } from "../../harness/Suite.ts"

const sqlite = makeSqliteAdapter()

/** The shipped scheduler with one method replaced by `wrap(scheduler)`'s. */
const wrapped = (name: string, wrap: (scheduler: AlarmScheduler) => Partial<AlarmScheduler>): AlarmsImplementation => ({
  name,
  make: (deps) => Effect.map(shippedAlarms.make(deps), (scheduler): AlarmScheduler => ({ ...scheduler, ...wrap(scheduler) }))
})

const catchUnder = (implementation: AlarmsImplementation) =>
  Effect.runPromise(catchKnownBad({ suite: pluginSuite(alarmsPlugin, implementation), adapter: sqlite, propertyOrder: ["alarms/faults"] }))

describe("a failed read outside any transaction (readFails)", () => {
  it("the unit schedules the alarms due in order, fails a read of a status and of the dispatch, then reads every status", () => {
    const commands = readFaultCommands({ alarms: [{ id: "1", fails: true }, { id: "2", fails: false }], parks: true, statusRead: 2, dispatchRead: 4 }, () => "a")
    expect(commands.map((command) => command.op)).toEqual(["configure", "schedule", "schedule", "status", "dispatch", "status", "status"])
    expect(commands[3]).toEqual({ op: "status", ref: { tag: "a", id: "1" }, fault: { transaction: 1, phase: "readFails", statement: 2 } })
    expect(commands[4]).toMatchObject({ fault: { transaction: 1, phase: "readFails", statement: 4 }, handlers: [{ id: "1", script: { outcome: "fail" } }, { id: "2", script: {} }] })
  })

  it("the model weighs every read point of a dispatch, and a failure at each stops the batch there", () => {
    let state = alarmsModel.init({ configuration: {}, legacyRows: [] })
    for (const id of ["1", "2"]) state = alarmsModel.step(state, { kind: "scheduleAlarm", nowMs: 0, input: { tag: "a", id, payload: null, runAtMs: Number(id) } }).state
    const dispatch = { kind: "processDueAlarms" as const, nowMs: 10, fault: { transaction: 1, phase: "readFails" as const, statement: 1 } }
    const unstruck = alarmsModel.step(state, dispatch)
    // Before anything, then per row before its re-read and after its pass, then before the final reconcile.
    expect(unstruck.readPoints).toBe(6)
    expect(unstruck.result._tag).toBe("Success")
    const handledAt = struckReadAlternatives(dispatch, unstruck.readPoints).map((alternative) => {
      const outcome = alarmsModel.step(state, alternative)
      return `${outcome.result._tag}:${Object.keys(outcome.state.rows).length}`
    })
    // Each failure keeps the rows acknowledged before it: 2, 2, 2, 1, 1, 0 rows left.
    expect(handledAt).toEqual(["Failure:2", "Failure:2", "Failure:2", "Failure:1", "Failure:1", "Failure:0"])
  })

  it("the gate's alarms/faults scenarios fail reads of dispatches and of statuses", () => {
    const property = propertyById(pluginSuite(alarmsPlugin, shippedAlarms), "alarms/faults")
    const scenarios = fc.sample(property.scenario(sqlite.capabilities), { numRuns: 60, seed: 20261129 }) as ReadonlyArray<AlarmsScenario>
    const faulted = scenarios.flatMap((scenario) => scenario.commands.flatMap((command) => "fault" in command && command.fault?.phase === "readFails" ? [command.op] : []))
    expect(faulted.filter((op) => op === "dispatch").length).toBeGreaterThanOrEqual(20)
    expect(faulted.filter((op) => op === "status").length).toBeGreaterThanOrEqual(20)
  })

  it("a status read whose storage error is swallowed as 'no such alarm' is caught under R28", async () => {
    const result = await catchUnder(wrapped("status-error-as-absent", (scheduler) => ({
      getAlarmStatus: (ref) => Effect.catchTag(scheduler.getAlarmStatus(ref), "StorageOperationError", () => Effect.succeed(undefined))
    })))
    expect(result.caught, result.run.verdict).toBe(true)
    expect(result.counterexamples.some((counterexample) => (counterexample.divergence.rules ?? []).includes("R28"))).toBe(true)
  }, 120_000)

  it("a dispatch that takes a failed select of the due rows for an empty batch is caught under R21", async () => {
    const result = await catchUnder(wrapped("failed-select-as-nothing-due", (scheduler) => ({
      processDueAlarms: (handle, options) =>
        Effect.catchIf(
          scheduler.processDueAlarms(handle, options),
          (error) => error instanceof StorageOperationError && error.operation === "alarm.selectDue",
          () => Effect.succeed({ handled: [], failed: [], parked: [] })
        )
    })))
    expect(result.caught, result.run.verdict).toBe(true)
    expect(result.counterexamples.some((counterexample) => (counterexample.divergence.rules ?? []).includes("R21"))).toBe(true)
  }, 120_000)
})
