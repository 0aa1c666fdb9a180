/**
 * R29's decode failure of a declared tag: the appended `narrowedSchema` unit
 * (`properties/alarms/appended.ts`) stores an alarm whose payload is not a number, redeploys with typed
 * definitions that narrow its tag's payload schema to numbers, maybe schedules the same tag with a
 * number or without one, and dispatches: the stored row no longer decodes, which is a handler failure
 * with backoff (`StoredAlarmDecodeError`), and the schedule without a number is refused
 * (`InvalidAlarmPayloadError`). Before the unit, every declared tag took any JSON value, so only an
 * unknown tag took R29's decode path.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { pluginSuite } from "../../harness/SubjectPlugin.ts"
import { narrowedSchemaCommands, narrowedSchemaDraw } from "../../properties/alarms/appended.ts"
import { alarmsPlugin } from "../../properties/alarms/plugin.ts"
import type { AlarmsScenario } from "../../properties/alarms/scenario.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { propertyById } from "../../harness/Suite.ts"

const sqlite = makeSqliteAdapter()

describe("a tag narrowed to numbers over stored rows (R29)", () => {
  it("the unit stores the alarm, redeploys with the tag narrowed, schedules the next id, dispatches and reads both", () => {
    expect(narrowedSchemaCommands({ id: "3", storedPayload: { count: 7 }, later: "notNumber" }, "b", null)).toEqual([
      { op: "schedule", input: { tag: "b", id: "3", payload: { count: 7 }, runInMs: 0 } },
      { op: "restart", reason: "restart", knownTags: ["a", "b"], numberTags: ["b"] },
      { op: "schedule", input: { tag: "b", id: "1", payload: "7", runInMs: 0 } },
      { op: "dispatch", handlers: [] },
      { op: "status", ref: { tag: "b", id: "3" } },
      { op: "status", ref: { tag: "b", id: "1" } }
    ])
    // Typed scenarios keep their own definitions, the tag narrowed among them.
    expect(narrowedSchemaCommands({ id: "1", storedPayload: null, later: "none" }, "a", ["a"])[1]).toEqual({ op: "restart", reason: "restart", knownTags: ["a"], numberTags: ["a"] })
  })

  it("never stores a number before the redeploy, and draws every later schedule", () => {
    const draws = fc.sample(narrowedSchemaDraw, { numRuns: 200, seed: 3 })
    expect(draws.every((draw) => typeof draw.storedPayload !== "number")).toBe(true)
    expect(new Set(draws.map((draw) => draw.later))).toEqual(new Set(["none", "number", "notNumber"]))
  })

  it("the gate's alarms/model scenarios end with the unit about one time in eight", () => {
    const property = propertyById(pluginSuite(alarmsPlugin, shippedAlarms), "alarms/model")
    const scenarios = fc.sample(property.scenario(sqlite.capabilities), { numRuns: 120, seed: 20261129 }) as ReadonlyArray<AlarmsScenario>
    const narrowed = scenarios.filter((scenario) => scenario.commands.some((command) => command.op === "restart" && (command.numberTags ?? []).length > 0))
    expect(narrowed.length).toBeGreaterThanOrEqual(8)
  })
})
