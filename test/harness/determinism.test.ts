/**
 * `--check-determinism`: every scenario runs twice and the traces must agree. A property whose
 * implementation reads something outside the harness (here a counter shared between runs, like a
 * cache or the wall clock) ends with verdict `error` naming the first differing step; the shipped
 * alarms scheduler passes the check on sqlite; the CLI flag reaches the runner.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { sqliteAdapter } from "../../adapters/sqlite/index.ts"
import { runConformance } from "../../harness/Conformance.ts"
import { firstTraceDifference } from "../../harness/Determinism.ts"
import type { ExecutionTrace, PropertyDefinition } from "../../harness/Property.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { runCli } from "../cli/support.ts"

const trace = (results: ReadonlyArray<number>): ExecutionTrace => ({
  steps: results.map((result, index) => ({ index, operation: "read", args: null, virtualTimeMs: 0, implementation: result, model: result })),
  divergence: null,
  covered: []
})

/** A property whose "implementation" returns a counter that survives between executions. */
const leakyProperty = (): PropertyDefinition<number> => {
  let calls = 0
  return {
    id: "toy/leaky",
    subject: "adapter",
    title: "reads a counter shared between runs",
    requirements: ["ADP-001"],
    needs: [],
    scenario: () => fc.nat({ max: 3 }),
    execute: (steps) => Effect.sync(() => trace([steps, calls++]))
  }
}

describe("the determinism check", () => {
  it("names the first differing step and field", () => {
    expect(firstTraceDifference(trace([1, 2]), trace([1, 2]))).toBeUndefined()
    expect(firstTraceDifference(trace([1, 2]), trace([1, 3]))).toBe("step 1 (read) differs in implementation: 2 the first time, 3 the second")
    expect(firstTraceDifference(trace([1]), trace([1, 2]))).toBe("the first run had 1 steps, the second 2")
  })

  it("ends a non-deterministic property with verdict error, and passes the shipped alarms scheduler", async () => {
    const leaky: SubjectSuite = {
      subject: "adapter",
      implementation: "reference",
      requirements: [{ id: "ADP-001", subject: "adapter", title: "toy", text: "the toy MUST read the same twice", rules: [], since: "0.2.0", needs: [] }],
      properties: [leakyProperty()]
    }
    const report = await Effect.runPromise(runConformance({
      kind: "run",
      adapters: [sqliteAdapter],
      suites: [leaky, alarmsSuite()],
      runs: 5,
      seed: 3,
      suiteHash: "unhashed",
      checkDeterminism: true
    }))
    const runs = report.adapters[0]!.properties
    const leakyRun = runs.find((run) => run.propertyId === "toy/leaky")!
    expect(leakyRun.verdict).toBe("error")
    expect(leakyRun.verdict === "error" ? leakyRun.error.message : "").toMatch(/^scenario is not deterministic: step 1 \(read\) differs in implementation: \d+ the first time, \d+ the second$/)
    for (const run of runs.filter((run) => run.subject === "alarms")) expect(run.verdict, run.propertyId).not.toBe("error")
  }, 120_000)

  it("is a flag of run", async () => {
    const result = await runCli(["run", "--help"])
    expect(result.stdout).toContain("--check-determinism")
  })
})
