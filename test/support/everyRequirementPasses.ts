/**
 * Runs `suite` on `adapters` at the gate's budget and seed and asserts that every requirement is
 * `pass` or `not-applicable` on each (never `fail`, `unknown` or `error`), naming any other verdict.
 */
import { Effect } from "effect"
import { expect } from "vitest"
import type { AdapterDefinition } from "../../adapters/contract.ts"
import { rejections } from "../../harness/allowedVariant.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { runConformance } from "../../harness/Conformance.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"

/** Asserts that `suite` passes every applicable requirement on every one of `adapters`. */
export const expectEveryRequirementPasses = async (suite: SubjectSuite, adapters: ReadonlyArray<AdapterDefinition>): Promise<void> => {
  const report = await Effect.runPromise(runConformance({ kind: "run", adapters, suites: [suite], runs: DEFAULT_RUNS, seed: DEFAULT_SEED, suiteHash: "unhashed" }))
  expect(report.adapters).toHaveLength(adapters.length)
  for (const adapter of report.adapters) expect(adapter.requirements.length, adapter.fingerprint.name).toBeGreaterThan(0)
  expect(rejections(report).map((rejection) => `${rejection.adapter} ${rejection.requirementId} ${rejection.verdict}: ${rejection.reason}`)).toEqual([])
}
