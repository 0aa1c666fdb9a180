/**
 * A stream held open across a sweep that deletes its content (`properties/content/heldStream.ts`, the
 * race property's fourth unit). K7: a stream checks its content in one read-only snapshot before
 * emitting anything, so once it has emitted a part it emits the whole content. A store that checks the
 * chunks and then reads each one outside that snapshot emits what the sweep left.
 */
import { Cause, Effect, Stream } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentSuite } from "../../properties/content/index.ts"
import type { Command, ContentScenario } from "../../properties/content/scenario.ts"
import { RACE_JUMP_MS } from "../../properties/content/targeted.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { readBytes } from "../../subjects/content/dialect.ts"
import { shippedContent } from "../../subjects/content/index.ts"
import { propertyById } from "../../harness/Suite.ts"

/** The shipped store, but its stream checks the content whole and then reads each chunk on its own, outside any snapshot. */
const chunkByChunk: ContentImplementation = {
  name: "content-stream-reads-chunks-one-by-one",
  make: (options) =>
    Effect.map(shippedContent.make(options), (store) => ({
      ...store,
      stream: (tenant, hash, size, timeoutMs) =>
        Stream.unwrap(Effect.gen(function*() {
          const checked = yield* Stream.runCollect(store.stream(tenant, hash, size, timeoutMs))
          const chunkOf = (chunk: number) =>
            options.sql<{ readonly bytes: unknown }>`SELECT bytes FROM tenant_content_chunks WHERE tenant_id = ${tenant} AND hash = ${hash} AND chunk = ${chunk}`.pipe(
              Effect.map((rows) => (rows[0] === undefined ? new Uint8Array(0) : readBytes(rows[0].bytes))),
              Effect.orDie
            )
          return Stream.mapEffect(Stream.range(0, checked.length - 1), chunkOf)
        }))
    }))
}

const races = (implementation: ContentImplementation) => {
  const suite = contentSuite(implementation)
  return propertyById(suite, "content/races")
}

/** The unit on its own: "nine byte" (three 4-byte chunks) uploaded in t1, aged, held, swept, read to its end. */
const UNIT: ReadonlyArray<Command> = [
  { op: "upload", tenant: 0, payload: 3, stream: false },
  { op: "advance", ms: RACE_JUMP_MS },
  { op: "streamOpen", tenant: 0, payload: 3 },
  { op: "sweep", force: true },
  { op: "streamRest" }
]

describe("a stream held across a sweep", () => {
  it("ends one race scenario in four or so, after every other command but the grant held between its read and its write", () => {
    const scenarios = fc.sample(races(shippedContent).scenario(makeSqliteAdapter().capabilities), { numRuns: 300, seed: 11 }) as ReadonlyArray<ContentScenario>
    const held = scenarios.filter((scenario) => scenario.commands.some((command) => command.op === "streamOpen"))
    expect(held.length).toBeGreaterThan(40)
    expect(held.length).toBeLessThan(120)
    // The fifth race unit (`RACE_FIFTH_UNITS`: upload, advance, race, read) is drawn after this one.
    const fifth = (command: Command | undefined) => command?.op === "race" && command.mode === "readThenWrite"
    const withoutFifth = (commands: ReadonlyArray<Command>) => (fifth(commands.at(-2)) ? commands.slice(0, -4) : commands)
    for (const scenario of held) expect(withoutFifth(scenario.commands).slice(-3).map((command) => command.op)).toEqual(["streamOpen", "sweep", "streamRest"])
  })

  it("the shipped store emits the content whole after the sweep deleted it, and reaches the situation", async () => {
    const trace = await Effect.runPromise(executeScenario(races(shippedContent), makeSqliteAdapter(), { commands: UNIT } as unknown as Json))
    expect(trace.divergence, trace.divergence?.explanation).toBeNull()
    expect(trace.steps[3]!.implementation).toEqual({ _tag: "Success", value: 1 })
    expect(trace.steps[4]!.implementation).toMatchObject({ size: 9 })
    expect(trace.situations).toContain("streamHeldAcrossSweep")
  }, 60_000)

  it("a stream's refusal is judged when it opens, and a rest with nothing held does nothing", async () => {
    const refused: ReadonlyArray<Command> = [{ op: "streamOpen", tenant: 0, payload: 3 }, { op: "streamRest" }]
    const trace = await Effect.runPromise(executeScenario(races(shippedContent), makeSqliteAdapter(), { commands: refused } as unknown as Json))
    expect(trace.divergence, trace.divergence?.explanation).toBeNull()
    expect(trace.steps[0]!.implementation).toEqual({ _tag: "Failure", error: new Cause.NoSuchElementError()._tag })
    expect(trace.steps[1]!.implementation).toBeNull()
  }, 60_000)

  it("holds one stream at a time: a second open ends the first, and the rest reads the second", async () => {
    const twice: ReadonlyArray<Command> = [...UNIT.slice(0, 3), { op: "streamOpen", tenant: 0, payload: 3 }, { op: "streamRest" }, { op: "streamRest" }]
    const trace = await Effect.runPromise(executeScenario(races(shippedContent), makeSqliteAdapter(), { commands: twice } as unknown as Json))
    expect(trace.divergence, trace.divergence?.explanation).toBeNull()
    expect(trace.steps[4]!.implementation).toMatchObject({ size: 9 })
    expect(trace.steps[5]!.implementation).toBeNull()
  }, 60_000)

  it("content/races catches a stream that reads its chunks outside one snapshot, under CNT-008, at the held stream's end", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(chunkByChunk), adapter: makeSqliteAdapter(), propertyOrder: ["content/races"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    const [counterexample] = result.counterexamples
    expect(counterexample!.divergence.requirementId).toBe("CNT-008")
    expect(counterexample!.trace.steps.at(-1)!.operation).toBe("streamRest")
  }, 120_000)
})
