/**
 * R1: an application that never provides `ScheduleConfiguration` gets the defaults, because upstream's
 * reference has a default (`{}`). A scenario drawn without a configuration therefore provides no
 * reference at all until its first `configure` command. A scheduler that needs the configuration
 * provided (here: the shipped one reading upstream's key first through a service with no default)
 * cannot be built in such a scenario, and the property ends with an `error` verdict saying so.
 */
import * as fc from "fast-check"
import { Context, Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { runProperty } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import type { AlarmsScenario } from "../../properties/alarms/scenario.ts"
import { UPSTREAM_ALARM_REPORTER_KEY, UPSTREAM_SCHEDULE_CONFIGURATION_KEY } from "../../properties/alarms/upstreamReferences.ts"
import { AlarmReporter, type AlarmsImplementation, ScheduleConfiguration } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()

/**
 * Upstream's configuration key as a service with no default (what a scheduler whose reference lost
 * its default reads): found whenever the harness provides the reference, missing when it does not.
 */
class RequiredConfiguration extends Context.Service<RequiredConfiguration, ScheduleConfiguration>()(UPSTREAM_SCHEDULE_CONFIGURATION_KEY) {}

/** The shipped scheduler, built only after reading the configuration through `RequiredConfiguration`. */
const needsProvidedConfiguration: AlarmsImplementation = {
  name: "needs-provided-configuration",
  // The requirement is hidden from the type, as in a JavaScript implementation: the lookup dies at run time when nothing provides it.
  make: (deps) => Effect.flatMap(Effect.service(RequiredConfiguration) as Effect.Effect<ScheduleConfiguration>, () => shippedAlarms.make(deps))
}

const modelProperty = (implementation: AlarmsImplementation) => propertyById(alarmsSuite(implementation), "alarms/model")

describe("alarms without a configuration reference (R1)", () => {
  it("the shipped scheduler reads its references under upstream's keys, which the harness provides by key", () => {
    expect(ScheduleConfiguration.key).toBe(UPSTREAM_SCHEDULE_CONFIGURATION_KEY)
    expect(AlarmReporter.key).toBe(UPSTREAM_ALARM_REPORTER_KEY)
  })

  it("draws scenarios that start without any configuration", () => {
    const scenarios = fc.sample(modelProperty(shippedAlarms).scenario(adapters.sqlite!.capabilities), { numRuns: 60, seed: 11 }) as ReadonlyArray<Json>
    const unconfigured = scenarios.filter((scenario) => (scenario as unknown as AlarmsScenario).configuration === undefined)
    expect(unconfigured.length).toBeGreaterThan(10)
  })

  it("fails to build a scheduler that needs its configuration provided, naming the missing reference", async () => {
    const result = await Effect.runPromise(runProperty({ property: modelProperty(needsProvidedConfiguration), adapter: adapters.sqlite!, seed: 3, runs: 20 }))
    expect(result.verdict).toBe("error")
    const error = (result as { readonly error?: { readonly message: string; readonly hint: string } }).error
    expect(error?.message).toMatch(/^alarms implementation needs-provided-configuration could not be built: .*effect-cf\/DurableObjectAlarm\/ScheduleConfiguration/)
    expect(error?.hint).toBe("the implementation's make failed; fix the implementation or the adapter")
  })
})
