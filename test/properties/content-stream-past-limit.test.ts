/**
 * Streamed uploads whose caller allows more than the store's limit (K3: over the limit is
 * `ContentTooLarge`, whatever the caller allows). The drawn streams are capped at or below the limit,
 * so until 2026-12-07 a store that checked the streamed body against the caller's cap alone passed
 * every scenario: blind bug `content-3/stream-upload-skips-store-maximum` (it shows only on a store
 * with independent connections, whose streams are not buffered). Now:
 * - one model scenario in four (at the small sizes) ends with such a stream: the payload at the limit
 *   or one byte over it, capped one byte over the limit or at twice it;
 * - the shipped and the independent store agree with the model on postgres, for all four;
 * - the blind bug, applied to a copy, is caught under CNT-003 (K3), also by `content/model` at the
 *   gate's budget and seed.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as contentBlindBugs } from "../../blind-bugs/content-3.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { DEFAULT_MODEL_CONFIG } from "../../models/content/index.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentScenario, drawnPayloadOfSize } from "../../properties/content/arbitraries.ts"
import { PROPERTY_SETTINGS } from "../../properties/content/config.ts"
import { CONTENT_SHAPES, contentSuite } from "../../properties/content/index.ts"
import type { Command, ContentScenario } from "../../properties/content/scenario.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const modelOf = (implementation?: ContentImplementation) => propertyById(contentSuite(implementation), "content/model")
const MAXIMUM = PROPERTY_SETTINGS.maxContentBytes

const pastLimit = (command: Command): boolean => command.op === "upload" && command.stream && (command.limit ?? 0) > MAXIMUM

/** Each of the four streams past the limit, on its own tenant, then a read of what the first stored. */
const pastLimitScenario = (bytes: number, limit: number): ContentScenario => {
  const payload = drawnPayloadOfSize(bytes)
  return {
    commands: [
      { op: "upload", tenant: 0, payload, stream: true, limit },
      { op: "read", tenant: 0, payload, sizeDelta: 0 }
    ]
  }
}

const CASES = [[MAXIMUM, MAXIMUM + 1], [MAXIMUM, 2 * MAXIMUM], [MAXIMUM + 1, MAXIMUM + 1], [MAXIMUM + 1, 2 * MAXIMUM]] as const

const run = (implementation: ContentImplementation | undefined, scenario: ContentScenario) =>
  Effect.runPromise(executeScenario(modelOf(implementation), adapters.postgres!, scenario as unknown as Json))

describe("a stream whose caller allows more than the store's limit", () => {
  const copies = useBlindCopy<ContentImplementation>(contentBlindBugs, "stream-upload-skips-store-maximum")

  it("ends about one model scenario in four at the small sizes, and none at the reference's", () => {
    const scenarios = fc.sample(contentScenario(CONTENT_SHAPES.model, makeSqliteAdapter().capabilities), { numRuns: 400, seed: 7 })
    const small = scenarios.filter((scenario) => scenario.parameters === undefined)
    const ending = small.filter((scenario) => scenario.commands.some(pastLimit))
    expect(ending.length).toBeGreaterThan(small.length / 6)
    expect(ending.length).toBeLessThan(small.length / 3)
    for (const scenario of ending) {
      expect(scenario.commands.filter(pastLimit)).toHaveLength(1)
      // Only the stream held past its timeout (four commands ending in `streamRest`) is drawn after it.
      const beforeHeld = scenario.commands.at(-1)?.op === "streamRest" ? scenario.commands.slice(0, -4) : scenario.commands
      expect(pastLimit(beforeHeld.at(-1)!)).toBe(true)
    }
    // At the reference's sizes the limit is 64 MiB: the streams there are capped at it.
    const atReference = scenarios.filter((scenario) => scenario.parameters !== undefined)
    expect(atReference.length).toBeGreaterThan(0)
    const pastReferenceLimit = (command: Command) => command.op === "upload" && command.stream && (command.limit ?? 0) > DEFAULT_MODEL_CONFIG.maxContentBytes
    expect(atReference.some((scenario) => scenario.commands.some(pastReferenceLimit))).toBe(false)
  })

  it.each(CASES)("a %i-byte body capped at %i: the shipped and the independent store agree with the model on postgres", async (bytes, limit) => {
    for (const implementation of [undefined, copies.original()]) {
      const trace = await run(implementation, pastLimitScenario(bytes, limit))
      expect(trace.divergence, trace.divergence?.explanation).toBeNull()
      expect((trace.steps[0]!.implementation as { readonly _tag: string })._tag).toBe(bytes > MAXIMUM ? "Failure" : "Success")
    }
  }, 120_000)

  it("a store that checks the caller's cap alone is caught under CNT-003, also by content/model at the gate's budget", async () => {
    const trace = await run(copies.blind(), pastLimitScenario(MAXIMUM + 1, 2 * MAXIMUM))
    expect(trace.divergence?.requirementId).toBe("CNT-003")
    expect(trace.divergence?.stepIndex).toBe(0)
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(copies.blind()), adapter: adapters.postgres!, propertyOrder: ["content/model"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(counterexample.divergence.requirementId).toBe("CNT-003")
  }, 300_000)
})
