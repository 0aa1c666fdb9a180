/**
 * Test helper: runs every adapter-contract property on one adapter through the real runner and
 * returns the runs, plus the requirement IDs named by failing counterexamples.
 */
import { Effect } from "effect"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { runProperty } from "../../harness/Runner.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import { adapterProperties } from "../../properties/adapter/index.ts"

/** The runs of every adapter property on `adapter`, and the requirement IDs that failed. */
export const runContract = (
  adapter: StorageAdapter,
  options: { readonly seed: number; readonly runs: number }
): Effect.Effect<{ readonly runs: ReadonlyArray<PropertyRun>; readonly failedIds: ReadonlyArray<string> }, unknown> =>
  Effect.gen(function*() {
    const runs: Array<PropertyRun> = []
    for (const property of adapterProperties) {
      runs.push(yield* runProperty({ property, adapter, seed: options.seed, runs: options.runs }))
    }
    const failedIds = runs.flatMap((run) => (run.verdict === "fail" ? run.counterexamples.map((cx) => cx.divergence.requirementId) : []))
    return { runs, failedIds: [...new Set(failedIds)].sort() }
  })

/** A one-line description of a run for assertion messages. */
export const describeRun = (run: PropertyRun): string =>
  `${run.propertyId}: ${run.verdict}${run.verdict === "error" ? ` (${run.error.message})` : ""}${
    run.verdict === "fail" ? run.counterexamples.map((cx) => ` (${cx.divergence.requirementId}: ${cx.divergence.explanation})`).join("") : ""
  }`
