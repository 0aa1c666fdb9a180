/**
 * The runner reports every violated requirement it can find in its budget, each with its own minimized
 * counterexample, and verdicts pass a requirement only after the whole budget: checked on a toy
 * key-value property with three independent bugs (`support/multiBugKv.ts`) on sqlite.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import type { PropertyDefinition } from "../../harness/Property.ts"
import { decodeReplayToken } from "../../harness/ReplayToken.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import { type Counterexample, counterexampleFor, MAX_COUNTEREXAMPLES_PER_RUN, type PropertyRun } from "../../harness/RunResult.ts"
import { requirementResults } from "../../harness/Verdicts.ts"
import type { Requirement } from "../../spec/Requirement.ts"
import { clampingStore, kvProperty } from "./support/kvProperty.ts"
import { MULTI_KV, multiBugKvProperty } from "./support/multiBugKv.ts"

const sqlite = makeSqliteAdapter()
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** Scenarios per toy run: enough that each bug is met several times. */
const RUNS = 300
const SEED = 11

const requirement = (id: string): Requirement => ({ id, subject: "adapter", title: `toy ${id}`, text: `${id} MUST hold`, rules: [], since: "0.1.0", needs: [] })

const verdictsOf = (runs: ReadonlyArray<PropertyRun>, property: PropertyDefinition<any>) =>
  requirementResults(property.requirements.map(requirement), runs, new Map([[property.id, property.requirements]]), sqlite.capabilities)

const failed = (result: PropertyRun) => {
  if (result.verdict !== "fail") throw new Error(`expected fail, got ${result.verdict}`)
  return result
}

const allBugs = multiBugKvProperty({ clamp: true, sticky: true, capped: true })

describe("a property run with several independent bugs", () => {
  let result: PropertyRun
  it("reports every failed requirement, each with its own minimized counterexample, after the whole budget", async () => {
    result = await run(runProperty({ property: allBugs, adapter: sqlite, seed: SEED, runs: RUNS }))
    const fail = failed(result)
    expect(fail.runsExecuted).toBe(RUNS)
    expect(fail.counterexamples.map((cx) => cx.divergence.requirementId).sort()).toEqual([MULTI_KV.put, MULTI_KV.del, MULTI_KV.count])
    const byRequirement = (id: string): Counterexample => counterexampleFor(fail, id)!
    // Minimized on their own requirement: the smallest scenario that breaks each rule.
    expect(byRequirement(MULTI_KV.put).scenario).toEqual([{ op: "put", key: 0, value: 101 }])
    // Keys 2 and 3 are sticky; shrinking one key at a time cannot move both off 3 together.
    const [put, del] = byRequirement(MULTI_KV.del).scenario as ReadonlyArray<{ readonly key: number }>
    expect(byRequirement(MULTI_KV.del).scenario).toEqual([{ op: "put", key: put?.key, value: 0 }, { op: "del", key: put?.key }])
    expect([2, 3]).toContain(del?.key)
    const countScenario = byRequirement(MULTI_KV.count).scenario as ReadonlyArray<{ readonly op: string; readonly key?: number; readonly value?: number }>
    expect(countScenario.map((step) => step.op)).toEqual(["put", "put", "put", "count"])
    expect(new Set(countScenario.slice(0, 3).map((step) => step.key)).size).toBe(3)
    expect(countScenario.slice(0, 3).every((step) => step.value === 0)).toBe(true)
    for (const cx of fail.counterexamples) {
      expect(cx.trace.divergence?.requirementId).toBe(cx.divergence.requirementId)
      expect(cx.shrinkSteps).toBeGreaterThan(0)
      expect(cx.runsToDetect).toBeGreaterThanOrEqual(1)
    }
    // Every known failure is counted against a requirement that has a counterexample.
    expect(Object.keys(fail.knownFailures).sort()).toEqual([MULTI_KV.put, MULTI_KV.del, MULTI_KV.count].sort())
    expect(fail.knownFailures[MULTI_KV.put]).toBeGreaterThan(10)
    expect(fail.failuresBeyondBound).toBeUndefined()
  })

  it("replays each counterexample from its token to the same divergence", async () => {
    for (const cx of failed(result).counterexamples) {
      const payload = await run(decodeReplayToken(cx.replayToken))
      expect(payload.scenario).toEqual(cx.scenario)
      const trace = await run(executeScenario(allBugs, sqlite, payload.scenario))
      expect(trace.divergence).toEqual(cx.divergence)
    }
  })

  it("fails the broken requirements with counts and passes the healthy one only because the whole budget ran", () => {
    const verdicts = verdictsOf([result], allBugs)
    const byId = new Map(verdicts.map((verdict) => [verdict.requirementId, verdict]))
    for (const id of [MULTI_KV.put, MULTI_KV.del, MULTI_KV.count]) {
      const verdict = byId.get(id)!
      expect(verdict.verdict).toBe("fail")
      expect(verdict.counterexample?.divergence.requirementId).toBe(id)
      expect(verdict.reason).toMatch(/\(failed in \d+ of \d+ scenarios that reached it\)$/)
    }
    const failures = 1 + failed(result).knownFailures[MULTI_KV.put]!
    expect(byId.get(MULTI_KV.put)!.reason).toContain(`failed in ${failures} of ${result.covered[MULTI_KV.put]} scenarios`)
    const healthy = byId.get(MULTI_KV.get)!
    expect(healthy.verdict).toBe("pass")
    expect(healthy.coveredRuns).toBe(result.covered[MULTI_KV.get])
    expect(healthy.reason).toBe(`${healthy.coveredRuns} of ${RUNS} scenarios reached it; all held`)
    // Reached well beyond the first failure: the old runner stopped at that scenario.
    const firstFailureAt = Math.min(...failed(result).counterexamples.map((cx) => cx.runsToDetect))
    expect(healthy.coveredRuns).toBeGreaterThan(firstFailureAt)
  })

  it("is deterministic: two runs with the same seed give identical JSON apart from durations", async () => {
    const again = await run(runProperty({ property: allBugs, adapter: sqlite, seed: SEED, runs: RUNS }))
    expect(JSON.stringify({ ...again, durationMs: 0 })).toBe(JSON.stringify({ ...result, durationMs: 0 }))
  })
})

describe("shrinking keeps the requirement it minimizes", () => {
  /** n >= 50 breaks KV-201, 10 <= n < 50 breaks KV-202: shrinking a KV-201 failure freely would end at 10. */
  const thresholds: PropertyDefinition<any> = {
    ...kvProperty(),
    id: "selftest/thresholds",
    requirements: ["KV-201", "KV-202"],
    scenario: () => fc.nat({ max: 1_000 }),
    execute: (n: number) =>
      Effect.succeed({
        steps: [{ index: 0, operation: "check", args: n, virtualTimeMs: 0, implementation: n, model: 0 }],
        covered: ["KV-201", "KV-202"],
        divergence: n >= 50
          ? { requirementId: "KV-201", stepIndex: 0, explanation: `${n} >= 50`, expected: 0, actual: n }
          : n >= 10
            ? { requirementId: "KV-202", stepIndex: 0, explanation: `${n} >= 10`, expected: 0, actual: n }
            : null
      })
  }

  it("gives each requirement the smallest scenario that still fails on it", async () => {
    const result = failed(await run(runProperty({ property: thresholds, adapter: sqlite, seed: 2, runs: 100 })))
    expect(counterexampleFor(result, "KV-201")?.scenario).toBe(50)
    expect(counterexampleFor(result, "KV-202")?.scenario).toBe(10)
    expect(result.counterexamples).toHaveLength(2)
  })
})

describe("verdicts after a cut budget", () => {
  it("is unknown when the time limit cuts a faithful run short, for the run and its requirements", async () => {
    const property = kvProperty()
    const cut = await run(runProperty({ property, adapter: sqlite, seed: 3, runs: 100_000, timeLimitMs: 300 }))
    expect(cut.verdict).toBe("unknown")
    expect(cut.runsExecuted).toBeGreaterThan(0)
    expect(cut.runsExecuted).toBeLessThan(100_000)
    const [verdict] = verdictsOf([cut], property)
    expect(verdict?.verdict).toBe("unknown")
    expect(verdict?.reason).toContain(`the time budget ran out (selftest/kv ran ${cut.runsExecuted} of 100000)`)
  })

  it("keeps failures found before the cut, and leaves the requirements that held unknown", async () => {
    const cut = await run(runProperty({ property: allBugs, adapter: sqlite, seed: SEED, runs: 100_000, timeLimitMs: 1_500 }))
    const fail = failed(cut)
    expect(fail.runsExecuted).toBeLessThan(100_000)
    expect(fail.counterexamples.map((cx) => cx.divergence.requirementId)).toContain(MULTI_KV.put)
    const verdicts = new Map(verdictsOf([cut], allBugs).map((verdict) => [verdict.requirementId, verdict.verdict]))
    expect(verdicts.get(MULTI_KV.put)).toBe("fail")
    expect(verdicts.get(MULTI_KV.get)).toBe("unknown")
  })

  it("does not pass a requirement that one property passed while another checking property was cut", async () => {
    const whole = await run(runProperty({ property: kvProperty(), adapter: sqlite, seed: 5, runs: 20 }))
    const cut = await run(runProperty({ property: kvProperty({ id: "selftest/kv-cut" }), adapter: sqlite, seed: 5, runs: 100_000, timeLimitMs: 200 }))
    expect(whole.verdict).toBe("pass")
    const both = requirementResults([requirement("KV-001")], [whole, cut], new Map([["selftest/kv", ["KV-001"]], ["selftest/kv-cut", ["KV-001"]]]), sqlite.capabilities)
    expect(both[0]?.verdict).toBe("unknown")
  })

  it("fails a requirement that has a counterexample even when another property passes it", async () => {
    const passing = await run(runProperty({ property: kvProperty(), adapter: sqlite, seed: 5, runs: 20 }))
    const failing = await run(runProperty({ property: kvProperty({ id: "selftest/kv-bad", store: clampingStore }), adapter: sqlite, seed: 5, runs: 100 }))
    const both = requirementResults([requirement("KV-001")], [passing, failing], new Map([["selftest/kv", ["KV-001"]], ["selftest/kv-bad", ["KV-001"]]]), sqlite.capabilities)
    expect(both[0]?.verdict).toBe("fail")
    expect(both[0]?.counterexample?.propertyId).toBe("selftest/kv-bad")
  })
})

describe("the bound on counterexamples per run", () => {
  /** Every scenario diverges on its own requirement, `BND-<n>`: far more distinct failures than the bound. */
  const manyRequirements: PropertyDefinition<any> = {
    ...kvProperty(),
    id: "selftest/many",
    requirements: Array.from({ length: 40 }, (_, n) => `BND-${n}`),
    scenario: () => fc.nat({ max: 39 }),
    execute: (scenario: number) =>
      Effect.succeed({
        steps: [{ index: 0, operation: "touch", args: scenario, virtualTimeMs: 0, implementation: 0, model: 1 }],
        covered: [`BND-${scenario}`],
        divergence: { requirementId: `BND-${scenario}`, stepIndex: 0, explanation: `BND-${scenario} broke`, expected: 1, actual: 0 }
      })
  }

  it("minimizes at most MAX_COUNTEREXAMPLES_PER_RUN requirements and says which others failed", async () => {
    const result = failed(await run(runProperty({ property: manyRequirements, adapter: sqlite, seed: 1, runs: 200 })))
    expect(result.counterexamples).toHaveLength(MAX_COUNTEREXAMPLES_PER_RUN)
    expect(new Set(result.counterexamples.map((cx) => cx.divergence.requirementId)).size).toBe(MAX_COUNTEREXAMPLES_PER_RUN)
    const beyond = Object.keys(result.failuresBeyondBound ?? {})
    expect(beyond.length).toBeGreaterThan(0)
    for (const id of beyond) expect(counterexampleFor(result, id)).toBeUndefined()
    const verdicts = verdictsOf([result], manyRequirements)
    const unminimized = verdicts.find((verdict) => verdict.requirementId === beyond[0])!
    expect(unminimized.verdict).toBe("fail")
    expect(unminimized.counterexample).toBeUndefined()
    expect(unminimized.reason).toContain("not minimized")
  })
})

describe("a detection run that stops after its first failures", () => {
  it("stops executing, and certifies nothing it did not fail: the rest stays unknown", async () => {
    const result = failed(await run(runProperty({ property: allBugs, adapter: sqlite, seed: SEED, runs: RUNS, stopAfterFailures: 1 })))
    expect(result.counterexamples).toHaveLength(1)
    expect(result.runsExecuted).toBeLessThan(RUNS)
    const verdicts = verdictsOf([result], allBugs)
    const failedId = result.counterexamples[0].divergence.requirementId
    for (const verdict of verdicts) expect(verdict.verdict).toBe(verdict.requirementId === failedId ? "fail" : "unknown")
  })

  it("refuses a bound that is not a positive integer", async () => {
    const exit = await Effect.runPromiseExit(runProperty({ property: allBugs, adapter: sqlite, seed: SEED, runs: 5, stopAfterFailures: 0 }))
    expect(exit._tag).toBe("Failure")
    expect(String(exit._tag === "Failure" ? exit.cause : "")).toMatch(/stopAfterFailures must be a positive integer/)
  })
})
