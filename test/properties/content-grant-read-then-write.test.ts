/**
 * K4, (iii): a grant held between a read of its content row outside any transaction and its next
 * write, while a whole sweep runs (`readThenWrite`, `properties/content/race.ts`), on a Postgres
 * server where the racer has a connection of its own:
 * - the race unit ends about one race scenario in four, after every other draw;
 * - the shipped store (one `UPDATE ... RETURNING`, never held) and the independent store agree with
 *   the model, and a grant that reads first and then answers by its own single raise does too;
 * - a grant that looks the row up, then raises it in a second statement and trusts the lookup (the
 *   held-out blind bug `grant-looks-up-then-raises`, with no hook point of ours between the two) is
 *   caught under CNT-011, by the race unit alone and by `content/races` at the gate's budget.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bugs as contentBlindBugs } from "../../blind-bugs/content-3.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentScenario } from "../../properties/content/arbitraries.ts"
import { CONTENT_SHAPES, contentSuite } from "../../properties/content/index.ts"
import type { Command, ContentScenario } from "../../properties/content/scenario.ts"
import { RACE_JUMP_MS } from "../../properties/content/targeted.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { makeContentStore } from "../../subjects/content/make.ts"
import { defaultContentPieces } from "../../subjects/content/pieces.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const racesOf = (implementation?: ContentImplementation) => propertyById(contentSuite(implementation), "content/races")

const readThenWrite = (command: Command): boolean => command.op === "race" && command.mode === "readThenWrite"

/** An aged upload, a grant of it held after its read while a forced sweep runs, then a read. */
const SCENARIO: ContentScenario = {
  commands: [
    { op: "upload", tenant: 0, payload: 0, stream: false },
    { op: "advance", ms: RACE_JUMP_MS },
    { op: "race", force: true, competitor: { op: "grant", tenant: 0, payload: 0 }, mode: "readThenWrite" },
    { op: "read", tenant: 0, payload: 0, sizeDelta: 0 }
  ]
}

const run = (implementation: ContentImplementation | undefined) =>
  Effect.runPromise(executeScenario(racesOf(implementation), adapters.postgres!, SCENARIO as unknown as Json))

/** The shipped store whose grant reads the row first, then answers by its own single raise (allowed: the raise decides). */
const readFirstRaise: ContentImplementation = {
  name: "grant-read-first-then-raise",
  make: makeContentStore({
    ...defaultContentPieces,
    raiseGrant: (statements, bound, untilMs) =>
      Effect.andThen(statements.horizonOf(bound.tenant, bound.hash, bound.size), statements.raise(bound.tenant, bound.hash, bound.size, untilMs))
  })
}

describe("a grant held between its read and its write while a sweep runs", () => {
  const copies = useBlindCopy<ContentImplementation>(contentBlindBugs, "grant-looks-up-then-raises")

  it("ends about one race scenario in four, after every other command", () => {
    const scenarios = fc.sample(contentScenario(CONTENT_SHAPES.races, adapters.postgres!.capabilities), { numRuns: 400, seed: 11 })
    const ending = scenarios.filter((scenario) => scenario.commands.some(readThenWrite))
    expect(ending.length).toBeGreaterThan(400 / 6)
    expect(ending.length).toBeLessThan(400 / 3)
    for (const scenario of ending) expect(readThenWrite(scenario.commands.at(-2)!)).toBe(true)
  })

  it("the shipped, the independent and a read-first grant agree with the model", async () => {
    for (const implementation of [undefined, copies.original(), readFirstRaise]) {
      const trace = await run(implementation)
      expect(trace.divergence, trace.divergence?.explanation).toBeNull()
    }
  }, 120_000)

  it("a grant that trusts its lookup is caught under CNT-011, alone and by content/races at the gate's budget", async () => {
    const trace = await run(copies.blind())
    expect(trace.divergence?.requirementId).toBe("CNT-011")
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(copies.blind()), adapter: adapters.postgres!, propertyOrder: ["content/races"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(counterexample.divergence.requirementId).toBe("CNT-011")
  }, 300_000)
})
