/**
 * A stream held after its first pull while virtual time moves on (`streamsHeldPastTimeout`,
 * `properties/content/targeted.ts`; `heldStream.ts`). K7: a stream "is interrupted after the command
 * timeout". No scenario held a stream while time moved, so until 2026-12-07 nothing checked it. Now:
 * - one model scenario in three (at the small sizes) ends with such a stream, held a millisecond short
 *   of its timeout, a millisecond past it, or twice it;
 * - past the timeout a stream may have emitted its content before, and one pull after (Effect's
 *   `Stream.interruptWhen`, which upstream uses, still delivers it), but no more: the shipped store (one
 *   chunk per pull) is interrupted after that pull, the independent one (the whole content in its first
 *   pull) has nothing left to emit; both agree with the model;
 * - a store that ignores the caller's timeout is caught at the stream's last step under CNT-008 (K7),
 *   also by `content/model` at the gate's budget and seed.
 * Blind bug `content-3/stream-timeout-on-query-only` (third round, held out) times the independent
 * store's chunk query instead of its stream; that store emits every part in its first pull, so the bug
 * has nothing to show below a few thousand chunks, and it stays missed.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as contentBlindBugs } from "../../blind-bugs/content-3.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentScenario } from "../../properties/content/arbitraries.ts"
import { STREAM_TIMEOUT_MS } from "../../properties/content/config.ts"
import { CONTENT_SHAPES, contentSuite } from "../../properties/content/index.ts"
import type { ContentScenario } from "../../properties/content/scenario.ts"
import { HELD_STREAM_MS } from "../../properties/content/targeted.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { shippedContent } from "../../subjects/content/index.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { propertyById } from "../../harness/Suite.ts"

/** The shipped store, but its streams run for a year whatever timeout the caller gives. */
const timeoutIgnored: ContentImplementation = {
  name: "content-stream-ignores-timeout",
  make: (options) =>
    Effect.map(shippedContent.make(options), (store) => ({
      ...store,
      stream: (tenant, hash, size) => store.stream(tenant, hash, size, 365 * 24 * 3_600_000)
    }))
}

const modelOf = (implementation?: ContentImplementation) => propertyById(contentSuite(implementation), "content/model")

/** "nine byte" (three 4-byte chunks) uploaded, streamed and held for `heldMs`, then read on. */
const heldScenario = (heldMs: number): ContentScenario => ({
  commands: [
    { op: "upload", tenant: 0, payload: 3, stream: false },
    { op: "streamOpen", tenant: 0, payload: 3 },
    { op: "advance", ms: heldMs },
    { op: "streamRest" }
  ]
})

const run = (implementation: ContentImplementation | undefined, heldMs: number) =>
  Effect.runPromise(executeScenario(modelOf(implementation), makeSqliteAdapter(), heldScenario(heldMs) as unknown as Json))

describe("a stream held while its timeout passes", () => {
  const copies = useBlindCopy<ContentImplementation>(contentBlindBugs, "stream-timeout-on-query-only")

  it("ends about one model scenario in three at the small sizes, after every other command", () => {
    const scenarios = fc.sample(contentScenario(CONTENT_SHAPES.model, makeSqliteAdapter().capabilities), { numRuns: 400, seed: 7 })
    const small = scenarios.filter((scenario) => scenario.parameters === undefined)
    const held = small.filter((scenario) => scenario.commands.at(-1)?.op === "streamRest" && scenario.commands.at(-2)?.op === "advance")
    expect(held.length).toBeGreaterThan(small.length / 4)
    expect(held.length).toBeLessThan(small.length / 2.4)
    for (const scenario of held) expect(HELD_STREAM_MS).toContain((scenario.commands.at(-2) as { readonly ms: number }).ms)
  })

  it.each(HELD_STREAM_MS)("held for %i ms: the shipped and the independent store agree with the model", async (heldMs) => {
    for (const implementation of [undefined, copies.original()]) {
      const trace = await run(implementation, heldMs)
      expect(trace.divergence, trace.divergence?.explanation).toBeNull()
      expect((trace.situations ?? []).includes("streamHeldPastTimeout")).toBe(heldMs >= STREAM_TIMEOUT_MS)
    }
  }, 60_000)

  it("the shipped store is interrupted past its timeout; the independent one had emitted everything before", async () => {
    const shipped = await run(undefined, STREAM_TIMEOUT_MS + 1)
    expect(shipped.steps.at(-1)!.implementation).toBe("at most one pull after its timeout")
    const independent = await run(copies.original(), STREAM_TIMEOUT_MS + 1)
    const last = independent.steps.at(-1)!
    expect(last.implementation).toEqual(last.model)
    expect((last.implementation as ReadonlyArray<Json>)[0]).toBe("at most one pull after its timeout")
  }, 60_000)

  it("a store that ignores the caller's timeout is caught under CNT-008, also by content/model at the gate's budget", async () => {
    const trace = await run(timeoutIgnored, STREAM_TIMEOUT_MS + 1)
    expect(trace.divergence?.requirementId).toBe("CNT-008")
    expect(trace.divergence?.stepIndex).toBe(3)
    expect((await run(timeoutIgnored, STREAM_TIMEOUT_MS - 1)).divergence).toBeNull()
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(timeoutIgnored), adapter: makeSqliteAdapter(), propertyOrder: ["content/model"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(counterexample.divergence.requirementId).toBe("CNT-008")
  }, 300_000)

  it("the blind bug that times the independent store's query has nothing to show: its stream emits every part in its first pull", async () => {
    expect((await run(copies.blind(), STREAM_TIMEOUT_MS + 1)).divergence).toBeNull()
  }, 60_000)
})
