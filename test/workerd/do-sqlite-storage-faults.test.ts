/**
 * Storage-boundary faults inside the Durable Object, on real Durable Object SQLite and its native
 * platform alarm: the shipped scheduler without hook points and one that catches every error and
 * defect around its handler pass `alarms/faults`; one that keeps going after a crash is caught at a
 * crash step. The same checks as test/properties/alarms-storage-faults.test.ts on the node adapters.
 */
import { env } from "cloudflare:test"
import { describe, expect, it } from "vitest"
import type { HostedRunRequest } from "../../adapters/contract.ts"
import { DEFAULT_SEED } from "../../harness/Budget.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"

const namespace = (env as unknown as { readonly CONFORMANCE: DurableObjectNamespace }).CONFORMANCE
const rpc = namespace.get(namespace.idFromName("storage-faults")) as unknown as { runProperty(request: HostedRunRequest): Promise<PropertyRun> }

/** Scenarios per run: the fault property's situations are common, and each costs a few ms in the object. */
const RUNS = 40

const faults = (implementation: string, stopAfterFailures?: number) =>
  rpc.runProperty({
    propertyId: "alarms/faults",
    implementation,
    seed: DEFAULT_SEED,
    runs: RUNS,
    ...(stopAfterFailures === undefined ? {} : { stopAfterFailures })
  })

describe("storage-boundary faults on do-sqlite", () => {
  it.each(["shipped-without-hook-points", "shipped-catching-everything"])("%s passes alarms/faults", async (implementation) => {
    const run = await faults(implementation)
    expect(run.verdict === "fail" ? run.counterexamples.map((c) => c.divergence.explanation) : run.verdict).toBe("pass")
    expect(run.runsExecuted).toBe(RUNS)
  })

  it("catches a scheduler that keeps going after a crash, at a crash step", async () => {
    const run = await faults("keeps-going-after-crash", 1)
    expect(run.verdict).toBe("fail")
    const witnesses = run.verdict === "fail" ? run.counterexamples.map((c) => c.trace.steps[c.divergence.stepIndex]!) : []
    expect(witnesses.some((step) => /crash inside/.test(step.fault ?? ""))).toBe(true)
  })
})
