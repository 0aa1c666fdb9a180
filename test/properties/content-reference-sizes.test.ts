/**
 * Content scenarios at the reference's sizes (`properties/content/referenceSizes.ts`): every other
 * scenario sets 4-byte chunks and a 12-byte limit, which would hide a store whose own defaults are not
 * content.md's 1 MiB chunks and 64 MiB limit. One model scenario in eight leaves both to the store's
 * defaults and ends with a content one byte over a chunk.
 */
import * as fc from "fast-check"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { DRAWN_PAYLOADS, LARGE_PAYLOAD, LARGE_PAYLOAD_BYTES, PAYLOADS, storeSettingsOf } from "../../properties/content/config.ts"
import { contentSuite } from "../../properties/content/index.ts"
import { REFERENCE_SIZES } from "../../properties/content/referenceSizes.ts"
import type { ContentScenario } from "../../properties/content/scenario.ts"
import type { ContentImplementation, ContentSettings } from "../../subjects/content/api.ts"
import { shippedContent } from "../../subjects/content/index.ts"
import { propertyById } from "../../harness/Suite.ts"

/** The shipped store, with `defaults` in place of the reference's where the harness sets nothing. */
const withDefaults = (name: string, defaults: Partial<ContentSettings>): ContentImplementation => ({
  name,
  make: (options) => shippedContent.make({ ...options, settings: { ...defaults, ...options.settings } })
})

const modelScenarios = (numRuns: number, seed: number): ReadonlyArray<ContentScenario> => {
  const model = propertyById(contentSuite(), "content/model")
  return fc.sample(model.scenario(makeSqliteAdapter().capabilities), { numRuns, seed }) as ReadonlyArray<ContentScenario>
}

const payloadsOf = (scenario: ContentScenario): ReadonlyArray<number> =>
  scenario.commands.flatMap((command) => ("payload" in command ? [command.payload] : []))

describe("content at the reference's sizes", () => {
  it("leaves the chunk size and the limit to the store's defaults, and keeps every other setting", () => {
    const settings = storeSettingsOf(REFERENCE_SIZES)
    expect(settings).not.toHaveProperty("chunkBytes")
    expect(settings).not.toHaveProperty("maxContentBytes")
    expect(settings).toMatchObject({ sweepBatch: 2 })
    expect(storeSettingsOf(undefined)).toMatchObject({ chunkBytes: 4, maxContentBytes: 12 })
    expect(PAYLOADS[LARGE_PAYLOAD]!.byteLength).toBe(LARGE_PAYLOAD_BYTES)
  })

  it("draws it in some model scenarios, which alone upload the large payload, at the end", () => {
    const scenarios = modelScenarios(400, 7)
    const atReference = scenarios.filter((scenario) => scenario.parameters !== undefined)
    expect(atReference.length).toBeGreaterThan(20)
    expect(atReference.length).toBeLessThan(100)
    for (const scenario of atReference) {
      expect(scenario.parameters).toEqual(REFERENCE_SIZES)
      expect(scenario.commands.slice(-3).map((command) => "payload" in command && command.payload)).toEqual([LARGE_PAYLOAD, LARGE_PAYLOAD, LARGE_PAYLOAD])
      expect(payloadsOf(scenario).slice(0, -3).every((payload) => payload < DRAWN_PAYLOADS)).toBe(true)
    }
    for (const scenario of scenarios.filter((candidate) => candidate.parameters === undefined)) {
      expect(payloadsOf(scenario).every((payload) => payload < DRAWN_PAYLOADS)).toBe(true)
    }
  })

  it.each([
    ["a default chunk size of 64 KiB", { chunkBytes: 64 * 1024 }],
    ["a default limit of 1 MiB", { maxContentBytes: 1024 * 1024 }]
  ])("content/model catches a store with %s at the gate's budget on sqlite", async (_, defaults) => {
    const bad = withDefaults("content-with-other-defaults", defaults)
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(bad), adapter: makeSqliteAdapter(), propertyOrder: ["content/model"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    const [counterexample] = result.counterexamples
    expect(counterexample!.divergence.requirementId).toMatch(/^CNT-00[23]$/)
    expect(counterexample!.scenario).toMatchObject({ parameters: REFERENCE_SIZES })
  }, 120_000)
})
