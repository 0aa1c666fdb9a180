/**
 * The alarms suite on do-sqlite through the Node host, as `run --adapter do-sqlite` runs it: every
 * alarms property passes at the gate's budget inside the Durable Object, a scenario executed remotely
 * (replay, `host.executeScenario`) gives the same trace as on local SQLite, and a run bound to an
 * implementation the worker does not hold is refused with a hint, while one bundled from an
 * `--implementation`-shaped module (`extraSuitesModule`) runs. Prints per-scenario cost.
 */
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { makeDoSqliteAdapterDefinition } from "../../hosts/do-sqlite/host.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { propertySeed } from "../../harness/Conformance.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { SHIPPED_AS_THIRD_PARTY_NAME } from "../workerd/shippedAsThirdParty.ts"
import { describeRun } from "./runContract.ts"

let scope: Scope.Closeable
let adapter: StorageAdapter

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  const startedMs = performance.now()
  adapter = await Effect.runPromise(Scope.provide(scope)(makeDoSqliteAdapterDefinition().make))
  console.info(`do-sqlite host ready in ${Math.round(performance.now() - startedMs)} ms`)
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("alarms on do-sqlite through the host", () => {
  it("passes every alarms property at DEFAULT_RUNS inside the Durable Object", async () => {
    let totalMs = 0
    for (const property of alarmsSuite().properties) {
      const startedMs = performance.now()
      const run = await Effect.runPromise(
        runProperty({ property, adapter, seed: propertySeed(DEFAULT_SEED, property.id, "do-sqlite"), runs: DEFAULT_RUNS })
      )
      const wallMs = performance.now() - startedMs
      totalMs += wallMs
      console.info(`do-sqlite ${property.id}: ${run.verdict}, ${run.runsExecuted} runs in ${Math.round(wallMs)} ms (${(wallMs / run.runsExecuted).toFixed(1)} ms per scenario)`)
      expect(run.verdict, describeRun(run)).toBe("pass")
      expect(run.runsExecuted).toBe(DEFAULT_RUNS)
    }
    console.info(`do-sqlite alarms suite at ${DEFAULT_RUNS} runs: ${Math.round(totalMs)} ms`)
  })

  it("executes a scenario remotely with the same trace as on local SQLite", async () => {
    const sqlite = makeSqliteAdapter()
    for (const property of alarmsSuite().properties) {
      const [scenario] = fc.sample(property.scenario(adapter.capabilities), { seed: 7, numRuns: 1 }) as Array<Json>
      const remote = await Effect.runPromise(adapter.host!.executeScenario!({ propertyId: property.id, implementation: property.implementation!, scenario: scenario! }))
      const local = await Effect.runPromise(executeScenario(property, sqlite, scenario!))
      expect(remote.steps.length, property.id).toBeGreaterThan(0)
      expect(remote.divergence, property.id).toBeNull()
      expect(remote, property.id).toEqual(local)
    }
  })

  it("refuses a run bound to an implementation the worker does not hold, saying how to bundle it", async () => {
    const error = await Effect.runPromise(Effect.flip(adapter.host!.runProperty({ propertyId: "alarms/model", implementation: "known-bad/not-bundled", seed: 1, runs: 1 })))
    expect(error.message).toMatch(/no property alarms\/model bound to implementation known-bad\/not-bundled/)
    expect(error.hint).toMatch(/extraSuitesModule/)
  })
})

describe("an --implementation module bundled into the do-sqlite worker", () => {
  it("runs the alarms properties bound to the module's implementation inside the object", async () => {
    const moduleScope = await Effect.runPromise(Scope.make())
    try {
      const extraSuitesModule = fileURLToPath(new URL("../workerd/shippedAsThirdParty.ts", import.meta.url))
      const bound = await Effect.runPromise(Scope.provide(moduleScope)(makeDoSqliteAdapterDefinition({ extraSuitesModule }).make))
      const run = await Effect.runPromise(bound.host!.runProperty({ propertyId: "alarms/model", implementation: SHIPPED_AS_THIRD_PARTY_NAME, seed: 3, runs: 10 }))
      expect(run.verdict, describeRun(run)).toBe("pass")
      expect(run.runsExecuted).toBe(10)
    } finally {
      await Effect.runPromise(Scope.close(moduleScope, Exit.void))
    }
  })
})
