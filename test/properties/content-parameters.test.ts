/**
 * Content races run under the store's parameters drawn last (`PARAMETER_VARIANTS`): a long turn T and
 * a short lifetime L, besides the reference's. The harness reads a returned grant through the store's
 * `verify`, so the model's grant is read the same way (`grantAsRead`): under L below S it is born
 * expired. A store that ignores the lifetime or the turn it is given is caught by the race property.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter, sqliteAdapter } from "../../adapters/sqlite/index.ts"
import { DEFAULT_SEED } from "../../harness/Budget.ts"
import { runConformance } from "../../harness/Conformance.ts"
import { PARAMETER_VARIANTS } from "../../properties/content/config.ts"
import { grantAsRead, resultAsRead } from "../../properties/content/driver.ts"
import { contentSuite } from "../../properties/content/index.ts"
import type { ContentScenario } from "../../properties/content/scenario.ts"
import { DEFAULT_CONTENT_SETTINGS, type ContentImplementation } from "../../subjects/content/api.ts"
import { shippedContent } from "../../subjects/content/index.ts"
import { propertyById } from "../../harness/Suite.ts"

const S = 60_000
const AT = 1_000_000

/** The shipped store, but built with the reference's L and T whatever it is given. */
const ignoresParameters: ContentImplementation = {
  name: "content-ignoring-its-parameters",
  make: (options) =>
    shippedContent.make({
      ...options,
      settings: { ...options.settings, grantLifetimeMs: DEFAULT_CONTENT_SETTINGS.grantLifetimeMs, turnMs: DEFAULT_CONTENT_SETTINGS.turnMs }
    })
}

describe("content parameters", () => {
  it("reads a predicted grant as verify does: expired at or before now + S", () => {
    expect(grantAsRead({ hash: "h", size: 1, expiresAt: AT + S }, AT, S)).toEqual({ hash: "h", size: 1, refused: "expired" })
    expect(grantAsRead({ expiresAt: AT + S + 1 }, AT, S)).toEqual({ expiresAt: AT + S + 1 })
    expect(grantAsRead(null, AT, S)).toBeNull()
    const born = { _tag: "Success", value: { expiresAt: AT + 10_000 } }
    expect(resultAsRead("grant", born, AT, S)).toEqual({ _tag: "Success", value: { refused: "expired" } })
    expect(resultAsRead("grantAndAttach", { _tag: "Success", value: { grant: { expiresAt: AT }, attach: null } }, AT, S))
      .toEqual({ _tag: "Success", value: { grant: { refused: "expired" }, attach: null } })
    // Only the results that carry a returned grant are read through verify.
    expect(resultAsRead("verify", born, AT, S)).toEqual(born)
    expect(resultAsRead("grant", { _tag: "Failure", error: "SqlError" }, AT, S)).toEqual({ _tag: "Failure", error: "SqlError" })
  })

  it("race scenarios draw the reference's parameters and every variant, and only those", () => {
    const races = propertyById(contentSuite(), "content/races")
    const scenarios = fc.sample(races.scenario(makeSqliteAdapter().capabilities), { numRuns: 200, seed: 3 }) as ReadonlyArray<ContentScenario>
    const drawn = new Set(scenarios.map((scenario) => JSON.stringify(scenario.parameters ?? null)))
    expect([...drawn].sort()).toEqual(["null", ...PARAMETER_VARIANTS.map((variant) => JSON.stringify(variant))].sort())
  })

  it("the race property fails a store that ignores the lifetime and turn it is given", async () => {
    const suite = contentSuite(ignoresParameters)
    const races = { ...suite, properties: suite.properties.filter((property) => property.id === "content/races") }
    const report = await Effect.runPromise(runConformance({ kind: "run", adapters: [sqliteAdapter], suites: [races], runs: 30, seed: DEFAULT_SEED, suiteHash: "unhashed" }))
    const [run] = report.adapters[0]!.properties
    expect(run!.verdict).toBe("fail")
  }, 60_000)
})
