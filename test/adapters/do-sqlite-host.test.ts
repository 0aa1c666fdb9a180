/**
 * The do-sqlite host from Node, as the CLI uses it: esbuild bundles the shipped conformance worker,
 * Miniflare starts it in real workerd with a SQLite-backed Durable Object, and the runner hands whole
 * property runs to the object. Also measures bundle, start and per-run cost.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { doSqliteCapabilities } from "../../adapters/do-sqlite/adapter.ts"
import { type DoSqliteHost, installedWorkerdVersion, startDoSqliteHost } from "../../hosts/do-sqlite/host.ts"
import { builtInAdapters } from "../../cli/adapterRegistry.ts"
import { runProperty } from "../../harness/Runner.ts"
import { adapterProperties } from "../../properties/adapter/index.ts"
import { describeRun, runContract } from "./runContract.ts"

let scope: Scope.Closeable
let host: DoSqliteHost
let adapter: StorageAdapter

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  host = await Effect.runPromise(Scope.provide(scope)(startDoSqliteHost()))
  adapter = {
    name: "do-sqlite",
    dialect: "sqlite",
    capabilities: doSqliteCapabilities,
    fingerprint: host.fingerprint,
    open: () => Effect.die("not used"),
    host
  }
  console.info(`do-sqlite host: bundle ${host.timings.bundleMs} ms, Miniflare start ${host.timings.startMs} ms`)
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("do-sqlite host (Miniflare)", () => {
  it("reports the fingerprint from inside workerd, with the workerd version", async () => {
    const fingerprint = await Effect.runPromise(host.fingerprint)
    expect(fingerprint).toMatchObject({ name: "do-sqlite", engine: "do-sqlite", dialect: "sqlite", capabilities: doSqliteCapabilities })
    expect(fingerprint.engineVersion).toBe(`workerd ${installedWorkerdVersion()}`)
  })

  it("is declared in the built-in registry with the capabilities the live object reports", async () => {
    const fingerprint = await Effect.runPromise(host.fingerprint)
    const declared = builtInAdapters.find((entry) => entry.name === "do-sqlite")
    expect(declared?.capabilities).toEqual(fingerprint.capabilities)
  })

  it("runs an adapter-contract property remotely, through the runner's delegation to the host", async () => {
    const property = adapterProperties.find((candidate) => candidate.id === "adapter/transactions")
    expect(property).toBeDefined()
    const runs = 40
    const startedMs = performance.now()
    const run = await Effect.runPromise(runProperty({ property: property!, adapter, seed: 20261129, runs }))
    const wallMs = performance.now() - startedMs
    console.info(`do-sqlite host: ${run.propertyId} ${runs} runs in ${Math.round(wallMs)} ms (${(wallMs / runs).toFixed(1)} ms per run)`)
    expect(run.verdict, describeRun(run)).toBe("pass")
    expect(run).toMatchObject({ adapter: "do-sqlite", runsExecuted: runs, seed: 20261129 })
  })

  it("passes the whole adapter contract on do-sqlite", async () => {
    const result = await Effect.runPromise(runContract(adapter, { seed: 7, runs: 30 }))
    for (const run of result.runs) expect(["pass", "not-applicable"], describeRun(run)).toContain(run.verdict)
  })

  it("answers an unknown property with an AdapterError that carries the object's hint", async () => {
    const error = await Effect.runPromise(Effect.flip(host.runProperty({ propertyId: "no/such-property", seed: 1, runs: 1 })))
    expect(error._tag).toBe("AdapterError")
    expect(error.message).toMatch(/no property no\/such-property is registered/)
    expect(error.hint).toMatch(/durable-conformance list/)
  })
})
