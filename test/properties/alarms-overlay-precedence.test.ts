/**
 * R1's overlay over a captured field of its own (`overlayPrecedence`, `properties/alarms/appended.ts`):
 * the whole valid configuration is captured by a rebuild, then the per-call reference sets one field
 * invalid, then an alarm is scheduled. Until 2026-12-06 a per-call field was rarely set over a captured
 * one, so blind bug `alarms-2/build-defaults-override-call-config` (the captured defaults win) was caught
 * only through outcomes the wrong values changed, under dispatch requirements citing other rules. Now:
 * - about one scenario in ten ends with the unit;
 * - the shipped scheduler and `examples/independent-alarms` refuse the call (`InvalidScheduleConfigurationError`);
 * - the blind bug, applied to a copy, is caught at the schedule under ALM-001 (R1 alone decides when
 *   the configuration is the call's only invalid input), also by `alarms/model` at the gate's budget.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as alarmsBlindBugs } from "../../blind-bugs/alarms-2.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { type OverlayField, overlayPrecedenceCommands } from "../../properties/alarms/appended.ts"
import { alarmsScenario } from "../../properties/alarms/arbitraries.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { propertyById } from "../../harness/Suite.ts"

const FIELDS: ReadonlyArray<OverlayField> = ["budgetZero", "budgetFraction", "minimumRetryDelay", "parkedRetryDelay", "minimumRepeatInterval", "crossField"]
const modelOf = (implementation?: AlarmsImplementation) => propertyById(alarmsSuite(implementation), "alarms/model")
const unitScenario = (field: OverlayField): Json => ({ commands: overlayPrecedenceCommands({ id: "1", field }, "a") }) as unknown as Json

describe("a per-call configuration field over a captured one (R1)", () => {
  const copies = useBlindCopy<AlarmsImplementation>(alarmsBlindBugs, "build-defaults-override-call-config")

  it("about one scenario in ten ends with the unit", () => {
    const scenarios = fc.sample(alarmsScenario({ faults: false, legacy: false, maxChunks: 12 }), { numRuns: 300, seed: 11 })
    const ending = scenarios.filter((scenario) => {
      const last = scenario.commands.at(-2)
      return last?.op === "schedule" && last.input.payload === "overlay"
    })
    expect(ending.length).toBeGreaterThan(15)
    expect(ending.length).toBeLessThan(50)
  })

  it("the shipped and the independent scheduler refuse the call: the overlay wins, so the merged configuration is invalid", async () => {
    for (const implementation of [undefined, copies.original()]) {
      for (const field of FIELDS) {
        const trace = await Effect.runPromise(executeScenario(modelOf(implementation), makeSqliteAdapter(), unitScenario(field)))
        expect(trace.divergence, `${field}: ${trace.divergence?.explanation}`).toBeNull()
        expect(trace.steps[3]!.implementation, field).toEqual({ _tag: "Failure", error: { _tag: "InvalidScheduleConfigurationError" } })
      }
    }
  }, 120_000)

  it("a scheduler whose captured defaults win is caught at the schedule under ALM-001, for every field", async () => {
    for (const field of FIELDS) {
      const trace = await Effect.runPromise(executeScenario(modelOf(copies.blind()), makeSqliteAdapter(), unitScenario(field)))
      expect(trace.divergence?.requirementId, field).toBe("ALM-001")
      expect(trace.divergence?.stepIndex, field).toBe(3)
    }
  }, 120_000)

  it("alarms/model names ALM-001 among its failed requirements at the gate's budget on sqlite", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: alarmsSuite(copies.blind()), adapter: makeSqliteAdapter(), propertyOrder: ["alarms/model"] }))
    expect(result.caught, result.run.verdict).toBe(true)
    expect(result.counterexamples.map((counterexample) => counterexample.divergence.requirementId)).toContain("ALM-001")
  }, 300_000)
})
