/**
 * The runner inside the conformance Durable Object, called over RPC as the Node host calls it: the
 * adapter-contract properties pass on Durable Object SQLite, a deliberately failing property is shrunk
 * to its minimal counterexample, and bad requests come back with a hint.
 */
import { env, runInDurableObject } from "cloudflare:test"
import { afterAll, describe, expect, it } from "vitest"
import { decodeHostedError } from "../../hosts/do-sqlite/hostedErrors.ts"
import type { AdapterFingerprint, HostedRunRequest } from "../../adapters/contract.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import { adapterProperties } from "../../properties/adapter/index.ts"

interface ConformanceRpc {
  fingerprint(): Promise<AdapterFingerprint>
  runProperty(request: HostedRunRequest): Promise<PropertyRun>
}
const namespace = (env as unknown as { readonly CONFORMANCE: DurableObjectNamespace }).CONFORMANCE
const stub = namespace.get(namespace.idFromName("runner"))
const rpc = stub as unknown as ConformanceRpc

/** Runs per property: enough to mix rollbacks, nesting and alarm writes, small enough for the CI budget. */
const RUNS = 25

afterAll(async () => {
  await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm())
})

describe("runner inside the conformance object", () => {
  it("reports the do-sqlite fingerprint over RPC", async () => {
    const fingerprint = await rpc.fingerprint()
    expect(fingerprint.name).toBe("do-sqlite")
    expect(fingerprint.capabilities.platformAlarm).toBe("native")
  })

  for (const property of adapterProperties) {
    it(`${property.id} holds on Durable Object SQLite`, async () => {
      const run = await rpc.runProperty({ propertyId: property.id, seed: 42, runs: RUNS })
      expect(run.verdict === "error" ? run.error : undefined).toBeUndefined()
      expect(run.verdict === "fail" ? run.counterexamples : undefined).toBeUndefined()
      expect(["pass", "not-applicable"]).toContain(run.verdict)
      if (run.verdict === "pass") expect(run.runsExecuted).toBe(RUNS)
    })
  }

  it("passes a model property that mixes writes, alarm changes and failing transactions", async () => {
    const run = await rpc.runProperty({ propertyId: "workerd-test/kv-model", seed: 7, runs: RUNS })
    expect(run).toMatchObject({ verdict: "pass", runsExecuted: RUNS, adapter: "do-sqlite" })
    expect(run.covered["WORKERD-TEST-1"]).toBe(RUNS)
  })

  it("shrinks a failing property to its minimal counterexample", async () => {
    const run = await rpc.runProperty({ propertyId: "workerd-test/threshold", seed: 1, runs: 50 })
    expect(run.verdict).toBe("fail")
    const [counterexample] = run.verdict === "fail" ? run.counterexamples : []
    expect(counterexample?.scenario).toBe(10)
    expect(counterexample?.replayToken).toBeTruthy()
  })

  it("honours a time limit sent with the request: the budget runs out and the verdict is unknown", async () => {
    const request = { propertyId: "workerd-test/kv-model", seed: 3, runs: 100_000, timeLimitMs: 300 }
    const run = await rpc.runProperty(request)
    expect(run.verdict).toBe("unknown")
    expect(run.runsExecuted).toBeGreaterThan(0)
    expect(run.runsExecuted).toBeLessThan(100_000)
  })

  it("rejects an unknown property id with a hint", async () => {
    const error = await rpc.runProperty({ propertyId: "no/such-property", seed: 1, runs: 1 }).then(() => null, (cause: unknown) => cause)
    expect(error).toBeInstanceOf(Error)
    const decoded = decodeHostedError((error as Error).message, "none")
    expect(decoded.message).toMatch(/no property no\/such-property/)
    expect(decoded.hint).toMatch(/durable-conformance list/)
  })
})
