/**
 * Every alarms property passes every allowed alarms variant (`variants.ts`) at the gate's budget, and
 * the variants whose choice a single call shows really differ from the shipped scheduler there.
 *
 * Adapter: sqlite only. On pglite one variant took 47-505 s at the gate's budget on the shared 2-core
 * machine (3-8 min under load), so the file could run past half an hour; the freedoms are choices of
 * statement order, query shape, validation order and platform alarm writes, none dialect-specific
 * (all six passed on pglite at the gate's budget when measured on 2026-12-04).
 * Measured on sqlite under load: 18-32 s a variant, 146 s for the file; the timeout is about 3x the slowest.
 */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { sqliteAdapter } from "../../../adapters/sqlite/index.ts"
import { alarmsSuite } from "../../../properties/alarms/index.ts"
import type { AlarmsImplementation } from "../../../subjects/alarms/api.ts"
import { ScheduleConfiguration } from "../../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../../subjects/alarms/index.ts"
import { at, runAlarms } from "../../subjects/alarmsSupport.ts"
import { expectEveryRequirementPasses } from "../../support/everyRequirementPasses.ts"
import { alarmsAllowedVariants } from "./variants.ts"

/** Per-variant timeout: about 3x the slowest measured sqlite run (49 s under load). */
const VARIANT_TIMEOUT_MS = 150_000

const variantNamed = (name: string): AlarmsImplementation => {
  const variant = alarmsAllowedVariants.find((candidate) => candidate.name === name)
  if (variant === undefined) throw new Error(`no allowed alarms variant ${name}`)
  return variant.implementation
}

/** Exit tag (and error tag) of scheduling `b` later than `a` while the platform alarm write fails. */
const laterScheduleWithFailingAlarmWrite = (implementation: AlarmsImplementation) =>
  runAlarms(implementation, (fixture) =>
    Effect.gen(function*() {
      yield* fixture.alarms.scheduleAlarm({ tag: "t", id: "a", payload: null, runAt: at(5_000) })
      fixture.failNextPlatformAlarmSet()
      const exit = yield* Effect.exit(fixture.alarms.scheduleAlarm({ tag: "t", id: "b", payload: null, runAt: at(9_000) }))
      return Exit.isSuccess(exit) ? "Success" : "Failure"
    }))

/** Error tag of a dispatch with an invalid configuration and an invalid `limit`. */
const doublyInvalidDispatch = (implementation: AlarmsImplementation) =>
  runAlarms(implementation, (fixture) =>
    fixture.alarms.processDueAlarms(() => Effect.void, { limit: 0 }).pipe(
      Effect.provideService(ScheduleConfiguration, { unchangedAttemptBudget: 0 }),
      Effect.flip,
      Effect.map((error) => (error as { readonly _tag: string })._tag)
    ))

describe("allowed alarms variants", () => {
  for (const variant of alarmsAllowedVariants) {
    it(`${variant.name} passes every alarms requirement on sqlite (${variant.freedom})`, async () => {
      await expectEveryRequirementPasses(alarmsSuite(variant.implementation), [sqliteAdapter])
    }, VARIANT_TIMEOUT_MS)
  }

  it("reconcile-skips-unchanged-alarm does not write a platform alarm that is already right", async () => {
    expect(await laterScheduleWithFailingAlarmWrite(shippedAlarms)).toBe("Failure")
    expect(await laterScheduleWithFailingAlarmWrite(variantNamed("reconcile-skips-unchanged-alarm"))).toBe("Success")
  })

  it("dispatch-options-before-configuration reports the options first when both are invalid", async () => {
    expect(await doublyInvalidDispatch(shippedAlarms)).toBe("InvalidScheduleConfigurationError")
    expect(await doublyInvalidDispatch(variantNamed("dispatch-options-before-configuration"))).toBe("InvalidProcessDueAlarmsOptionsError")
  })
})
