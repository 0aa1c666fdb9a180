/**
 * Every known-bad clocks implementation is caught on do-sqlite (real Durable Object SQLite in workerd,
 * through the Node host) at the gate's budget and seed. The host bundles the known-bad suites into its
 * worker (`test/workerd/knownBadSuites.ts`), so each run executes inside the object bound to
 * `known-bad/<name>`. Every reported requirement must be among those the bug breaks (the liveness bugs:
 * under their liveness requirement), every counterexample short, and re-executing it inside the object
 * must reproduce the same divergence.
 */
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { makeDoSqliteAdapterDefinition } from "../../../hosts/do-sqlite/host.ts"
import { type CatchResult, catchKnownBad, sameDivergence } from "../../../harness/knownBad.ts"
import { clocksSuite } from "../../../properties/clocks/index.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadClocks } from "./index.ts"

const KNOWN_BAD_SUITES_MODULE = fileURLToPath(new URL("../../workerd/knownBadSuites.ts", import.meta.url))
const CAUGHT_TIMEOUT_MS = 900_000

let scope: Scope.Closeable
let adapter: StorageAdapter

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  adapter = await Effect.runPromise(Scope.provide(scope)(makeDoSqliteAdapterDefinition({ extraSuitesModule: KNOWN_BAD_SUITES_MODULE }).make))
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("known-bad clocks on do-sqlite", () => {
  const caught = new Map<string, CatchResult>()

  it("every known-bad implementation is caught, reporting only requirements its bug breaks", async () => {
    const table: Array<string> = []
    for (const bad of knownBadClocks) {
      const expectation = EXPECTATIONS[bad.name]!
      const result = await Effect.runPromise(catchKnownBad({ suite: clocksSuite(bad.implementation), adapter, propertyOrder: expectation.properties, stopAfterFailures: 1 }))
      const error = result.run.verdict === "error" ? result.run.error.message : "not caught"
      expect.soft(result.caught, `${bad.name} on do-sqlite: ${error}`).toBe(true)
      if (!result.caught) continue
      caught.set(bad.name, result)
      for (const counterexample of result.counterexamples) {
        const id = counterexample.divergence.requirementId
        table.push(`| ${bad.name} | ${result.run.propertyId} | ${result.runsToDetect} | ${counterexample.trace.steps.length} | ${id} | ${result.durationMs} ms |`)
        expect.soft(bad.breaks, `${bad.name} reported ${id}: ${counterexample.divergence.explanation}`).toContain(id)
        if (expectation.reportedUnder !== undefined) expect.soft(expectation.reportedUnder, `${bad.name} reported ${id}`).toContain(id)
        expect.soft(counterexample.trace.steps.length, `${bad.name}: counterexample length`).toBeLessThanOrEqual(expectation.maxSteps)
      }
    }
    console.info(["| bug | property | runs to detect | steps | requirement | time |", "|---|---|---|---|---|---|", ...table].join("\n"))
    expect(caught.size).toBe(knownBadClocks.length)
  }, CAUGHT_TIMEOUT_MS)

  it("re-executing each counterexample inside the object reproduces the same divergence", async () => {
    const host = adapter.host
    expect(host?.executeScenario).toBeDefined()
    for (const bad of knownBadClocks) {
      for (const counterexample of caught.get(bad.name)?.counterexamples ?? []) {
        const trace = await Effect.runPromise(host!.executeScenario!({
          propertyId: counterexample.propertyId,
          implementation: bad.implementation.name,
          scenario: counterexample.scenario
        }))
        expect.soft(sameDivergence(counterexample.divergence, trace.divergence), `${bad.name} ${counterexample.divergence.requirementId}`).toBe(true)
      }
    }
  }, CAUGHT_TIMEOUT_MS)
})
