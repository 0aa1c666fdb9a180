import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { AdapterError } from "../../adapters/contract.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { decodeReplayToken, encodeReplayToken } from "../../harness/ReplayToken.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import * as fc from "fast-check"
import type { PropertyDefinition } from "../../harness/Property.ts"
import type { Counterexample, PropertyRun } from "../../harness/RunResult.ts"
import { clampingStore, kvProperty } from "./support/kvProperty.ts"

const sqlite = makeSqliteAdapter()
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** The only counterexample of a run that failed on exactly one requirement (throws otherwise). */
const onlyCounterexample = (result: PropertyRun): Counterexample => {
  if (result.verdict !== "fail") throw new Error(`expected fail, got ${result.verdict}`)
  expect(result.counterexamples).toHaveLength(1)
  return result.counterexamples[0]
}

describe("runner", () => {
  it("passes a faithful implementation and counts coverage", async () => {
    const result = await run(runProperty({ property: kvProperty(), adapter: sqlite, seed: 7, runs: 40 }))
    expect(result.verdict).toBe("pass")
    expect(result.runsExecuted).toBe(40)
    expect(result.covered["KV-001"]).toBeGreaterThan(10)
  })

  it("finds the clamping bug and minimizes it to put(k, 101) then get(k)", async () => {
    const result = await run(runProperty({ property: kvProperty({ store: clampingStore }), adapter: sqlite, seed: 7, runs: 200 }))
    expect(result.verdict).toBe("fail")
    const counterexample = onlyCounterexample(result)
    expect(counterexample.divergence.requirementId).toBe("KV-001")
    expect(counterexample.scenario).toEqual([{ op: "put", key: 0, value: 101 }, { op: "get", key: 0 }])
    expect(counterexample.trace.steps.map((step) => step.operation)).toEqual(["put", "get"])
    expect(counterexample.trace.steps[1]!.implementation).toBe(100)
    expect(counterexample.trace.steps[1]!.model).toBe(101)
    expect(counterexample.runsToDetect).toBeGreaterThanOrEqual(1)
  })

  it("is deterministic: same seed, same result bytes apart from durations", async () => {
    const once = await run(runProperty({ property: kvProperty({ store: clampingStore }), adapter: sqlite, seed: 99, runs: 100 }))
    const twice = await run(runProperty({ property: kvProperty({ store: clampingStore }), adapter: sqlite, seed: 99, runs: 100 }))
    expect(JSON.stringify({ ...once, durationMs: 0 })).toBe(JSON.stringify({ ...twice, durationMs: 0 }))
  })

  it("replays the counterexample from its token alone", async () => {
    const property = kvProperty({ store: clampingStore })
    const result = await run(runProperty({ property, adapter: sqlite, seed: 3, runs: 200 }))
    const payload = await run(decodeReplayToken(onlyCounterexample(result).replayToken))
    expect(payload.propertyId).toBe("selftest/kv")
    expect(payload.implementation).toBe("clamping")
    const trace = await run(executeScenario(property, sqlite, payload.scenario))
    expect(trace.divergence).toEqual(onlyCounterexample(result).divergence)
  })

  it("refuses corrupt and foreign tokens with a clear error", async () => {
    const token = encodeReplayToken({ suiteVersion: "0.1.0", propertyId: "p", implementation: "reference", adapter: "sqlite", seed: 1, path: "0", scenario: [] })
    const flipped = token.slice(0, 10) + (token[10] === "A" ? "B" : "A") + token.slice(11)
    const errors = await Promise.all(
      [flipped, token.slice(0, -3), "hello", "dc9.abc.def", encodeReplayToken({ suiteVersion: "9.9.9", propertyId: "p", implementation: "reference", adapter: "sqlite", seed: 1, path: "0", scenario: [] })].map(
        (bad) => Effect.runPromise(Effect.flip(decodeReplayToken(bad)))
      )
    )
    for (const error of errors) expect(error._tag).toBe("ReplayTokenError")
    expect(errors[0]!.message).toContain("checksum")
    expect(errors[3]!.message).toContain("dc9")
    expect(errors[4]!.message).toContain("suite version 9.9.9")
    expect(errors[4]!.hint).toContain("durable-conformance@9.9.9")
  })

  it("reports an adapter that throws as error, not as a requirement failure", async () => {
    const throwing: StorageAdapter = {
      ...sqlite,
      name: "throwing",
      open: () => Effect.fail(new AdapterError({ adapter: "throwing", message: "engine exploded", hint: "none" }))
    }
    const result = await run(runProperty({ property: kvProperty(), adapter: throwing, seed: 1, runs: 10 }))
    expect(result.verdict === "error" ? result.error.message : result.verdict).toContain("engine exploded")
    expect("counterexamples" in result).toBe(false)
  })

  it("reports an adapter that hangs as error after the run timeout", async () => {
    const hanging: StorageAdapter = { ...sqlite, name: "hanging", open: () => Effect.never }
    const result = await run(runProperty({ property: kvProperty(), adapter: hanging, seed: 1, runs: 5, runTimeoutMs: 200 }))
    expect(result.verdict === "error" ? result.error.message : result.verdict).toContain("within 200 ms")
  })

  it("is not-applicable when the adapter lacks a capability the property needs", async () => {
    const result = await run(runProperty({ property: kvProperty({ needs: ["independentConnections"] }), adapter: sqlite, seed: 1, runs: 5 }))
    expect(result.verdict === "not-applicable" ? result.missingCapabilities : result.verdict).toEqual(["independentConnections"])
    expect(result.runsExecuted).toBe(0)
  })

  it("truncates a counterexample to the commands that ran, when the property says how", async () => {
    const base = kvProperty({ store: clampingStore })
    // A timeline generated as one unit: shrinking can lower the value but cannot drop the tail.
    const timeline = fc.nat({ max: 1_000 }).map((value) => [
      { op: "put", key: 0, value },
      { op: "get", key: 0 },
      { op: "put", key: 1, value: 5 },
      { op: "get", key: 1 }
    ])
    const untruncated = await run(runProperty({ property: { ...base, id: "selftest/timeline", scenario: () => timeline }, adapter: sqlite, seed: 4, runs: 100 }))
    expect(onlyCounterexample(untruncated).scenario).toHaveLength(4)
    const truncating = { ...base, id: "selftest/timeline", scenario: () => timeline, truncate: (scenario: ReadonlyArray<unknown>, trace: { readonly steps: ReadonlyArray<unknown> }) => scenario.slice(0, trace.steps.length) }
    const result = await run(runProperty({ property: truncating, adapter: sqlite, seed: 4, runs: 100 }))
    expect(onlyCounterexample(result).scenario).toEqual([{ op: "put", key: 0, value: 101 }, { op: "get", key: 0 }])
    expect(onlyCounterexample(result).divergence).toEqual(onlyCounterexample(untruncated).divergence)
    const payload = await run(decodeReplayToken(onlyCounterexample(result).replayToken))
    expect(payload.scenario).toEqual(onlyCounterexample(result).scenario)
  })

  it("reports a counterexample that does not fail again as a non-determinism error", async () => {
    let executions = 0
    const flaky: PropertyDefinition<any> = {
      ...kvProperty(),
      id: "selftest/flaky",
      scenario: () => fc.nat({ max: 10 }),
      execute: () =>
        Effect.sync(() => {
          executions++
          const diverges = executions === 1
          return {
            steps: [],
            covered: ["KV-001"],
            divergence: diverges ? { requirementId: "KV-001", stepIndex: 0, explanation: "only the first execution fails", expected: 1, actual: 2 } : null
          }
        })
    }
    const result = await run(runProperty({ property: flaky, adapter: sqlite, seed: 1, runs: 5 }))
    expect(result.verdict === "error" ? result.error.message : result.verdict).toContain("non-deterministic")
    expect("counterexamples" in result).toBe(false)
  })

  it("rejects invalid options with a typed error", async () => {
    const error = await Effect.runPromise(Effect.flip(runProperty({ property: kvProperty(), adapter: sqlite, seed: 1, runs: 0 })))
    expect(error._tag).toBe("InvalidOptionsError")
    const seedError = await Effect.runPromise(Effect.flip(runProperty({ property: kvProperty(), adapter: sqlite, seed: 2 ** 40, runs: 1 })))
    expect(seedError.message).toContain("32-bit")
  })
})
