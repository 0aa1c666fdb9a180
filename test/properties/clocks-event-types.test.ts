/**
 * `eventTypes.ts`: C2 names the engine's four records but no namespace, so the bare names and any
 * namespace of the implementation's read as the model's; anything else is left as written and differs.
 */
import { describe, expect, it } from "vitest"
import { EVENT } from "../../models/clocks/keys.ts"
import { modelEventType } from "../../properties/clocks/eventTypes.ts"

describe("clocks event types", () => {
  it("reads C2's names, bare or under any namespace, as the model's", () => {
    expect(modelEventType("clock-scheduled")).toBe(EVENT.clockScheduled)
    expect(modelEventType("deferred-consumed")).toBe(EVENT.deferredConsumed)
    expect(modelEventType("acme.flows.clock-completed")).toBe(EVENT.clockCompleted)
    expect(modelEventType(EVENT.deferredCompleted)).toBe(EVENT.deferredCompleted)
  })

  it("leaves other types as written: another record's name, a suffix without a dot, the effect boundary", () => {
    for (const type of ["clock-scheduled-v2", "xclock-scheduled", "clock_scheduled", "flows.time-travel.effect-boundary", ""]) {
      expect(modelEventType(type)).toBe(type)
    }
    expect(modelEventType("deferred-completed")).not.toBe(EVENT.clockCompleted)
  })
})
