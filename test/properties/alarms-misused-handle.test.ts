/**
 * R5: a transaction handle works only on the closure's own fiber while the closure runs. Misuses
 * used to be one draw in nine of a transaction's mutations, spread over three mutations and two
 * misuses, so some pairs (a forked `scheduleAlarmEarlier`) never occurred at the gate's budget; the
 * appended `misusedHandle` unit (`properties/alarms/appended.ts`) draws each pair, and each misused
 * call's outcome is its own check citing R5, before the transaction's whole result (which cites the
 * transaction's atomicity, R4 and R6, and so named the platform-alarm requirement).
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { pluginSuite } from "../../harness/SubjectPlugin.ts"
import { misusedHandleCommands, misusedHandleDraw } from "../../properties/alarms/appended.ts"
import { alarmsPlugin } from "../../properties/alarms/plugin.ts"
import type { AlarmsScenario } from "../../properties/alarms/scenario.ts"
import { type AlarmsImplementation, type AlarmScheduler, StorageOperationError } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { propertyById } from "../../harness/Suite.ts"

const sqlite = makeSqliteAdapter()

describe("misused transaction handles (R5)", () => {
  it("the unit schedules the alarm, then misuses the handle once, then reads the status", () => {
    expect(misusedHandleCommands({ id: "1", kind: "scheduleAlarmEarlier", misuse: "forkedFiber" }, "a")).toEqual([
      {
        op: "transaction",
        mutations: [
          { kind: "scheduleAlarm", input: { tag: "a", id: "1", payload: "kept", runInMs: 60_000 } },
          { kind: "scheduleAlarmEarlier", input: { tag: "a", id: "1", payload: "misused", runInMs: 10_000 }, misuse: "forkedFiber" }
        ]
      },
      { op: "status", ref: { tag: "a", id: "1" } }
    ])
  })

  it("draws every (mutation, misuse) pair", () => {
    const pairs = new Set(fc.sample(misusedHandleDraw, { numRuns: 300, seed: 1 }).map((draw) => `${draw.kind}/${draw.misuse}`))
    expect(pairs.size).toBe(6)
  })

  it("the gate's alarms/model scenarios reach every pair", () => {
    const property = propertyById(pluginSuite(alarmsPlugin, shippedAlarms), "alarms/model")
    const scenarios = fc.sample(property.scenario(sqlite.capabilities), { numRuns: 600, seed: 20261129 }) as ReadonlyArray<AlarmsScenario>
    const pairs = new Set(scenarios.flatMap((scenario) => scenario.commands.flatMap((command) =>
      command.op === "transaction" ? command.mutations.flatMap((mutation) => mutation.misuse === undefined ? [] : [`${mutation.kind}/${mutation.misuse}`]) : [])))
    expect(pairs.size).toBe(6)
  })

  it("a handle whose forked scheduleAlarmEarlier fails without naming its operation is caught under R5's requirement", async () => {
    const nameless: AlarmsImplementation = {
      name: "misuse-error-without-operation",
      make: (deps) =>
        Effect.map(shippedAlarms.make(deps), (scheduler): AlarmScheduler => ({
          ...scheduler,
          transaction: (closure) =>
            scheduler.transaction((handle) =>
              closure({
                ...handle,
                scheduleAlarmEarlier: (input) =>
                  Effect.mapError(handle.scheduleAlarmEarlier(input), (error) =>
                    error instanceof StorageOperationError ? new StorageOperationError({ operation: "", cause: error.cause }) : error)
              }))
        }))
    }
    const result = await Effect.runPromise(catchKnownBad({ suite: pluginSuite(alarmsPlugin, nameless), adapter: sqlite, propertyOrder: ["alarms/model"] }))
    expect(result.caught, result.run.verdict).toBe(true)
    expect(result.counterexamples.map((counterexample) => counterexample.divergence.requirementId)).toContain("ALM-005")
  }, 120_000)
})
