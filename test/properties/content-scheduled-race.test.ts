/**
 * Scheduled content races (`properties/content/race.ts`, mode `scheduled`): whatever order a step
 * schedule gives the sweep's and the racer's steps, the model is told where the racer's writes landed
 * and agrees with the shipped store, with and without hook points; the steps taken are in the trace.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import type { StepSchedule } from "../../harness/StepSchedule.ts"
import { contentSuite } from "../../properties/content/index.ts"
import type { Command, ContentScenario } from "../../properties/content/scenario.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { contentWithoutHookPoints } from "../allowed/content/variants.ts"
import { propertyById } from "../../harness/Suite.ts"

/** PCT schedules placing the racer's writes before the sweep, between its scan and delete, after it. */
const PLACEMENTS: ReadonlyArray<readonly [string, StepSchedule]> = [
  ["before", { strategy: "pct", priorityOrder: [1, 0], changePoints: [] }],
  ["between", { strategy: "pct", priorityOrder: [0, 1], changePoints: [1] }],
  ["after", { strategy: "pct", priorityOrder: [0, 1], changePoints: [] }],
  ["racer started, then the sweep", { strategy: "pct", priorityOrder: [1, 0], changePoints: [1] }]
]

const withSchedule = (scenario: ContentScenario, schedule: StepSchedule): ContentScenario => ({
  commands: scenario.commands.map((command): Command => (command.op === "race" ? { ...command, mode: "scheduled", schedule } : command))
})

describe("scheduled content races on sqlite", () => {
  it("the model predicts every placement a schedule gives, with and without hook points", async () => {
    const adapter = makeSqliteAdapter()
    const racesOf = (implementation?: ContentImplementation) => propertyById(contentSuite(implementation), "content/races")
    const scenarios = fc.sample(racesOf().scenario(adapter.capabilities), { numRuns: 6, seed: 5 }) as ReadonlyArray<ContentScenario>
    const orders = new Set<string>()
    for (const scenario of scenarios) {
      for (const [placement, schedule] of PLACEMENTS) {
        for (const implementation of [undefined, contentWithoutHookPoints.implementation]) {
          const trace = await Effect.runPromise(executeScenario(racesOf(implementation), adapter, withSchedule(scenario, schedule) as unknown as Json))
          expect(trace.divergence, `${placement}, ${implementation?.name ?? "shipped"}: ${trace.divergence?.explanation}`).toBeNull()
          const race = trace.steps.find((step) => step.operation === "race")!
          const steps = (race.args as { readonly steps: ReadonlyArray<string> }).steps
          expect(steps[0]).toMatch(/@start$/)
          if (implementation === undefined) orders.add(`${placement}: ${steps.join(" ")}`)
          if (schedule.strategy === "pct") expect(trace.situations).toContain(`interleaving.pct.d${schedule.changePoints.length + 1}`)
        }
      }
    }
    // The between schedule really paused the sweep after its reference scan while the racer wrote.
    expect([...orders].some((order) => /^between: sweep@start racer@start racer@content\.\w+ sweep@content\.afterReferenceScan$/.test(order))).toBe(true)
    expect([...orders].some((order) => /^racer started, then the sweep: racer@start sweep@start sweep@content\.afterReferenceScan racer@content\.\w+$/.test(order))).toBe(true)
  }, 120_000)
})
