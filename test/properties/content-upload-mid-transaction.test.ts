/**
 * An upload held between two statements of its transaction while a whole sweep runs
 * (`raiseMidTransaction`, `properties/content/race.ts`). Until 2026-12-06 no race paused an upload
 * between its statements, so a store whose upsert is an insert that does nothing on conflict and then
 * an update, and that returns a ref when the update finds the row gone (a sweep deleted it between
 * the two), passed: blind bug `content-2/upsert-vanished-row-not-reinserted`. Now:
 * - the race property's third appended unit (`targeted.ts`, `uploadMidTransaction`) ages an upload,
 *   uploads the same bytes again held right after its first write to the content row, runs the sweep,
 *   and reads back;
 * - the shipped store (one upsert statement: it holds the row's lock, the delete waits) and the
 *   independent store (insert, then update: no lock between, the sweep deletes the row and the upload
 *   writes it again) agree with the model on postgres;
 * - the blind bug, applied to a copy, is caught at the race under CNT-002 (K2), also by
 *   `content/races` at the gate's budget and seed.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as contentBlindBugs } from "../../blind-bugs/content-2.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentScenario } from "../../properties/content/arbitraries.ts"
import { CONTENT_SHAPES, contentSuite } from "../../properties/content/index.ts"
import type { ContentScenario } from "../../properties/content/scenario.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const racesOf = (implementation?: ContentImplementation) => propertyById(contentSuite(implementation), "content/races")

/** An upload aged past its deletion horizon, the same bytes uploaded again mid-sweep, then read back. */
const midTransactionScenario: ContentScenario = {
  commands: [
    { op: "upload", tenant: 0, payload: 2, stream: false },
    { op: "advance", ms: 2 * 24 * 3_600_000 },
    { op: "race", force: true, competitor: { op: "upload", tenant: 0, payload: 2 }, mode: "raiseMidTransaction" },
    { op: "read", tenant: 0, payload: 2, sizeDelta: 0 }
  ]
}

const run = (implementation: ContentImplementation | undefined) =>
  Effect.runPromise(executeScenario(racesOf(implementation), adapters.postgres!, midTransactionScenario as unknown as Json))

describe("an upload held between its statements while a sweep runs", () => {
  const copies = useBlindCopy<ContentImplementation>(contentBlindBugs, "upsert-vanished-row-not-reinserted")

  it("race scenarios end with one in about half, drawn after every other unit but the held stream", () => {
    const scenarios = fc.sample(contentScenario(CONTENT_SHAPES.races, makeSqliteAdapter().capabilities), { numRuns: 200, seed: 7 })
    const held = scenarios.filter((scenario) => scenario.commands.some((command) => command.op === "race" && command.mode === "raiseMidTransaction"))
    expect(held.length).toBeGreaterThan(70)
    expect(held.length).toBeLessThan(130)
    for (const scenario of held) {
      // Only the fourth unit (a held stream, five commands ending in `streamRest`) is drawn after it.
      const beforeFourth = scenario.commands.at(-1)?.op === "streamRest" ? scenario.commands.slice(0, -5) : scenario.commands
      expect(beforeFourth.at(-1)).toMatchObject({ op: "read" })
    }
  })

  it("the shipped store holds the row's lock (the delete waits), the independent one writes the row again: both agree with the model", async () => {
    const shipped = await run(undefined)
    expect(shipped.divergence, shipped.divergence?.explanation).toBeNull()
    expect(shipped.steps[2]!.implementation).toMatchObject({ sweep: { _tag: "Success", value: 0 } })
    const independent = await run(copies.original())
    expect(independent.divergence, independent.divergence?.explanation).toBeNull()
    // The sweep deleted the aged row before the upload's update: the upload wrote it again.
    expect(independent.steps[2]!.implementation).toMatchObject({ sweep: { _tag: "Success", value: 1 } })
    expect(independent.steps[3]!.implementation).toMatchObject({ _tag: "Success" })
  }, 120_000)

  it("a store that returns a ref for a row the sweep deleted is caught at the race under CNT-002", async () => {
    const trace = await run(copies.blind())
    expect(trace.divergence?.requirementId).toBe("CNT-002")
    expect(trace.divergence?.stepIndex).toBe(2)
  }, 120_000)

  it("content/races catches it at the gate's budget on postgres, under CNT-002", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(copies.blind()), adapter: adapters.postgres!, propertyOrder: ["content/races"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(counterexample.divergence.requirementId).toBe("CNT-002")
  }, 300_000)
})
