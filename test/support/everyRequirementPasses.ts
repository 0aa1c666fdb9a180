/**
 * Runs `suite` on `adapters` at the gate's budget and seed and asserts that every requirement is
 * `pass` or `not-applicable` on each (never `fail`, `unknown` or `error`), naming any other verdict;
 * and declares those tests for a subject's allowed variants.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { AdapterDefinition } from "../../adapters/contract.ts"
import { pgliteAdapter } from "../../adapters/pglite/index.ts"
import { sqliteAdapter } from "../../adapters/sqlite/index.ts"
import { type AllowedVariant, rejections } from "../../harness/allowedVariant.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { runConformance } from "../../harness/Conformance.ts"
import type { SubjectImplementation } from "../../harness/SubjectPlugin.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"

/** Asserts that `suite` passes every applicable requirement on every one of `adapters`. */
export const expectEveryRequirementPasses = async (suite: SubjectSuite, adapters: ReadonlyArray<AdapterDefinition>): Promise<void> => {
  const report = await Effect.runPromise(runConformance({ kind: "run", adapters, suites: [suite], runs: DEFAULT_RUNS, seed: DEFAULT_SEED, suiteHash: "unhashed" }))
  expect(report.adapters).toHaveLength(adapters.length)
  for (const adapter of report.adapters) expect(adapter.requirements.length, adapter.fingerprint.name).toBeGreaterThan(0)
  expect(rejections(report).map((rejection) => `${rejection.adapter} ${rejection.requirementId} ${rejection.verdict}: ${rejection.reason}`)).toEqual([])
}

/** Measured seconds of one allowed variant's run on sqlite and, where it also runs there, on pglite. */
export interface MeasuredSeconds {
  readonly sqlite: number
  readonly pglite?: number
}

/** A run's timeout: three times the measured seconds (2 shared cores), at least 30 s. */
export const variantTimeoutMs = (seconds: number): number => Math.max(30_000, seconds * 3_000)

/**
 * Declares the tests that every allowed variant passes: one asserting each variant has a measured
 * time, then one per variant and adapter (sqlite always, pglite where it has a measured time there).
 */
export const describeVariantsPass = <Implementation extends SubjectImplementation>(
  subject: string,
  variants: ReadonlyArray<AllowedVariant<Implementation>>,
  suiteOf: (implementation: Implementation) => SubjectSuite,
  measuredSeconds: Readonly<Record<string, MeasuredSeconds>>
): void => {
  describe(`allowed ${subject} variants pass every requirement`, () => {
    it("every variant has a measured time", () => {
      expect(variants.map((each) => each.name).sort()).toEqual(Object.keys(measuredSeconds).sort())
    })
    for (const { name, implementation } of variants) {
      const measured = measuredSeconds[name]!
      it(`${name} on sqlite`, () => expectEveryRequirementPasses(suiteOf(implementation), [sqliteAdapter]), variantTimeoutMs(measured.sqlite))
      if (measured.pglite !== undefined) {
        it(`${name} on pglite`, () => expectEveryRequirementPasses(suiteOf(implementation), [pgliteAdapter]), variantTimeoutMs(measured.pglite))
      }
    }
  })
}
