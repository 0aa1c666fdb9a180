/**
 * `harness/HookVocabulary.ts`: a hook point reached under a name the subject does not declare is a
 * binding mistake that would silently collapse every interleaving meant for that place, so the
 * property ends in an error naming it instead of a verdict.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { hookPoint } from "../../harness/HookPoints.ts"
import { MAX_UNDECLARED_HOOK_NAMES, withHookVocabulary } from "../../harness/HookVocabulary.ts"
import type { ExecutionEnvironment, PropertyDefinition } from "../../harness/Property.ts"
import { runProperty } from "../../harness/Runner.ts"
import { pluginSuite } from "../../harness/SubjectPlugin.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { propertyById } from "../../harness/Suite.ts"
import { alarmsPlugin } from "../../properties/alarms/plugin.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import * as fc from "fast-check"

const trace = { steps: [], divergence: null, covered: [] }

const hittingProperty = (names: ReadonlyArray<string>): PropertyDefinition<null> => ({
  id: "selftest/hooks",
  subject: "alarms",
  title: "reaches hook points",
  requirements: [],
  needs: [],
  scenario: () => fc.constant(null),
  execute: () => Effect.as(Effect.forEach(names, hookPoint, { discard: true }), trace)
})

const suiteOf = (property: PropertyDefinition<null>): SubjectSuite => ({ subject: "alarms", implementation: "selftest", requirements: [], properties: [property] })

const executeChecked = (names: ReadonlyArray<string>, declared: ReadonlyArray<string> | undefined) => {
  const property = withHookVocabulary(suiteOf(hittingProperty(names)), declared).properties[0]!
  return Effect.runPromise(Effect.scoped(Effect.flip(property.execute(null, {} as ExecutionEnvironment))))
}

describe("hook vocabulary", () => {
  it("lets declared hook points through and returns the property's own trace", async () => {
    const property = withHookVocabulary(suiteOf(hittingProperty(["a.one", "a.two", "a.one"])), ["a.one", "a.two"]).properties[0]!
    const result = await Effect.runPromise(Effect.scoped(property.execute(null, {} as ExecutionEnvironment)))
    expect(result).toBe(trace)
  })

  it("fails with a HarnessError naming each undeclared hook point once and the declared names", async () => {
    const error = await executeChecked(["a.one", "a.tow", "", "a.tow"], ["a.one", "a.two"])
    expect(error._tag).toBe("HarnessError")
    expect(error.message).toBe(
      "selftest/hooks: the implementation reached hook points \"a.tow\", \"\", which subject alarms does not declare, so no interleaving could pause there"
    )
    expect(error.hint).toContain("\"a.one\", \"a.two\"")
    expect(error.hint).toContain("hook points are optional")
  })

  it("remembers a bounded number of undeclared names", async () => {
    const names = Array.from({ length: MAX_UNDECLARED_HOOK_NAMES + 5 }, (_, index) => `x.${index}`)
    const error = await executeChecked(names, [])
    expect(error.message.match(/"x\.\d+"/g)).toHaveLength(MAX_UNDECLARED_HOOK_NAMES)
  })

  it("checks nothing for a subject that declares no hook points", () => {
    const suite = suiteOf(hittingProperty(["anything"]))
    expect(withHookVocabulary(suite, undefined)).toBe(suite)
  })

  it("each scenario starts afresh: an earlier scenario's undeclared names do not leak into the next", async () => {
    const property = withHookVocabulary(suiteOf(hittingProperty(["a.one"])), ["a.one"]).properties[0]!
    await executeChecked(["a.typo"], ["a.one"])
    const result = await Effect.runPromise(Effect.scoped(property.execute(null, {} as ExecutionEnvironment)))
    expect(result).toBe(trace)
  })

  it("an alarms implementation reaching a misspelled hook point ends its properties in an error that names it", async () => {
    const misspelled: AlarmsImplementation = {
      name: "misspelled-hook",
      make: (deps) =>
        Effect.map(shippedAlarms.make(deps), (scheduler) => ({
          ...scheduler,
          scheduleAlarm: (input) => Effect.andThen(hookPoint("alarms.afterReadExsting"), scheduler.scheduleAlarm(input))
        }))
    }
    const property = propertyById(pluginSuite(alarmsPlugin, misspelled), "alarms/model")
    const run = await Effect.runPromise(runProperty({ property, adapter: makeSqliteAdapter(), seed: 1, runs: 5 }))
    expect(run.verdict).toBe("error")
    if (run.verdict !== "error") return
    expect(run.error.message).toContain("reached hook point \"alarms.afterReadExsting\", which subject alarms does not declare")
  })

  it("the shipped implementations reach only hook points their subjects declare", async () => {
    const property = propertyById(pluginSuite(alarmsPlugin, shippedAlarms), "alarms/model")
    const run = await Effect.runPromise(runProperty({ property, adapter: makeSqliteAdapter(), seed: 1, runs: 5 }))
    expect(run.verdict).toBe("pass")
  })
})
