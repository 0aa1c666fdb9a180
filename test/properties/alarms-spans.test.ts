/**
 * ALM-054: the scheduler's operations keep upstream's span names (`DurableObjectAlarm.scheduleAlarm`,
 * `.cancelAlarm`, `.processDueAlarms`; typed definitions `DefinedAlarms.*`, seed 000). The harness
 * records the spans each call opens through a tracer of its own (`harness/SpanRecorder.ts`), so the
 * check needs nothing from the implementation. The shipped scheduler passes and reaches ALM-054; one
 * that traces its operations under names of its own is caught under ALM-054 alone, with a short
 * counterexample that names the missing span.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { runProperty } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import type { AlarmScheduler, AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()

/** `effect` traced only as `name`: the spans it would open itself are hidden. */
const tracedAs = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withSpan(Effect.withTracerEnabled(effect, false), name)

/** The shipped scheduler with its public operations traced under `alarms.<operation>` only. */
const ownSpanNames: AlarmsImplementation = {
  name: "own-span-names",
  make: (deps) =>
    Effect.map(shippedAlarms.make(deps), (scheduler): AlarmScheduler => ({
      ...scheduler,
      scheduleAlarm: (input) => tracedAs("alarms.scheduleAlarm", scheduler.scheduleAlarm(input)),
      scheduleAlarmEarlier: (input) => tracedAs("alarms.scheduleAlarmEarlier", scheduler.scheduleAlarmEarlier(input)),
      cancelAlarm: (input) => tracedAs("alarms.cancelAlarm", scheduler.cancelAlarm(input)),
      processDueAlarms: (handle, options) => tracedAs("alarms.processDueAlarms", scheduler.processDueAlarms(handle, options))
    }))
}

const modelProperty = (implementation: AlarmsImplementation) => propertyById(alarmsSuite(implementation), "alarms/model")

describe("alarms span names (ALM-054)", () => {
  it("passes the shipped scheduler and reaches ALM-054", async () => {
    const run = await Effect.runPromise(runProperty({ property: modelProperty(shippedAlarms), adapter: adapters.sqlite!, seed: 5, runs: 10 }))
    expect(run.verdict).toBe("pass")
    expect(run.covered["ALM-054"] ?? 0).toBeGreaterThan(0)
  }, 120_000)

  it("catches a scheduler that names its spans its own way, under ALM-054 alone, with a short counterexample", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: alarmsSuite(ownSpanNames), adapter: adapters.sqlite!, propertyOrder: ["alarms/model"] }))
    expect(result.caught).toBe(true)
    expect(result.counterexamples.map((counterexample) => counterexample.divergence.requirementId)).toEqual(["ALM-054"])
    const [counterexample] = result.counterexamples
    expect(counterexample!.trace.steps.length).toBeLessThanOrEqual(2)
    expect(counterexample!.divergence.explanation).toMatch(/"missing":\[.*"DurableObjectAlarm\.\w+"/)
  }, 120_000)
})
