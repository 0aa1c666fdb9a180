/**
 * Every known-bad alarms implementation is caught on do-sqlite (real Durable Object SQLite in workerd,
 * through the Node host) at the gate's budget and seed: `DEFAULT_RUNS` scenarios per property,
 * `propertySeed(DEFAULT_SEED, property.id, "do-sqlite")`. The host bundles the known-bad suites into its
 * worker (`extraSuitesModule`), so each run executes inside the object bound to `known-bad/<name>`.
 *
 * Per bug the kit's caught-loop tries the suite's properties in order until one fails; every reported
 * requirement must be among those the bug breaks, every counterexample as short as on the in-process
 * adapters, and re-executing each counterexample inside the object (`host.executeScenario`, replay)
 * must reproduce the same divergence. Runs to detect and counterexample length are printed as a table.
 */
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { makeDoSqliteAdapterDefinition } from "../../../hosts/do-sqlite/host.ts"
import { type CatchResult, catchKnownBad, misattributed, sameDivergence } from "../../../harness/knownBad.ts"
import { alarmsSuite } from "../../../properties/alarms/index.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadAlarms } from "./index.ts"

const KNOWN_BAD_SUITES_MODULE = fileURLToPath(new URL("../../workerd/knownBadSuites.ts", import.meta.url))

/**
 * Wall-clock limit of the caught-loop over all known-bads: each failing property run searches its
 * whole budget and minimizes every failed requirement inside the object.
 */
const CAUGHT_TIMEOUT_MS = 1_200_000

let scope: Scope.Closeable
let adapter: StorageAdapter

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  const startedMs = performance.now()
  adapter = await Effect.runPromise(Scope.provide(scope)(makeDoSqliteAdapterDefinition({ extraSuitesModule: KNOWN_BAD_SUITES_MODULE }).make))
  console.info(`do-sqlite host with the known-bad suites ready in ${Math.round(performance.now() - startedMs)} ms`)
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("known-bad alarms on do-sqlite", () => {
  const caught = new Map<string, CatchResult>()

  it("every known-bad implementation is caught, reporting only requirements its bug breaks", async () => {
    const table: Array<string> = []
    for (const bad of knownBadAlarms) {
      const result = await Effect.runPromise(catchKnownBad({ suite: alarmsSuite(bad.implementation), adapter, stopAfterFailures: 1 }))
      for (const counterexample of result.counterexamples) {
        const id = counterexample.divergence.requirementId
        table.push(
          `| ${bad.name} | ${result.run.propertyId} | ${result.run.verdict} | ${result.runsToDetect} | ${counterexample.trace.steps.length} | ${id} | ${bad.breaks.includes(id) ? "yes" : "NO"} | ${result.durationMs} ms |`
        )
      }
      if (!result.caught) table.push(`| ${bad.name} | ${result.run.propertyId} | ${result.run.verdict} | - | - | - | - | ${result.durationMs} ms |`)
      const error = result.run.verdict === "error" ? result.run.error.message : "not caught"
      expect.soft(result.caught, `${bad.name} on do-sqlite: ${error}`).toBe(true)
      if (!result.caught) continue
      caught.set(bad.name, result)
      for (const mismatch of misattributed(bad, result.counterexamples)) {
        expect.soft(mismatch.expected, `${bad.name} reported ${mismatch.reported}: ${mismatch.explanation}`).toContain(mismatch.reported)
      }
      for (const counterexample of result.counterexamples) {
        // The same bound on the minimized counterexample as on the in-process adapters.
        expect.soft(counterexample.trace.steps.length, `${bad.name}: counterexample length`).toBeLessThanOrEqual(EXPECTATIONS[bad.name]!.maxSteps)
      }
    }
    console.info(["| bug | property | verdict | runs to detect | steps | requirement | in breaks | time |", "|---|---|---|---|---|---|---|---|", ...table].join("\n"))
    expect(caught.size).toBe(knownBadAlarms.length)
  }, CAUGHT_TIMEOUT_MS)

  it("re-executing each counterexample inside the object reproduces the same divergence", async () => {
    const host = adapter.host
    expect(host?.executeScenario).toBeDefined()
    expect(caught.size).toBe(knownBadAlarms.length)
    for (const bad of knownBadAlarms) {
      for (const counterexample of caught.get(bad.name)?.counterexamples ?? []) {
        const trace = await Effect.runPromise(host!.executeScenario!({
          propertyId: counterexample.propertyId,
          implementation: bad.implementation.name,
          scenario: counterexample.scenario
        }))
        expect.soft(sameDivergence(counterexample.divergence, trace.divergence), `${bad.name} ${counterexample.divergence.requirementId}`).toBe(true)
      }
    }
  })
})
