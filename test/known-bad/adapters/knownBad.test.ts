/**
 * Known-bad adapters, each built by wrapping the real sqlite adapter, fail the contract and the
 * counterexample names the requirement they break.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../../adapters/sqlite/index.ts"
import { runProperty } from "../../../harness/Runner.ts"
import { counterexampleFor, failedRequirementIds } from "../../../harness/RunResult.ts"
import { byteOrderProperty, roundTripProperty, transactionsProperty, upsertProperty } from "../../../properties/adapter/index.ts"
import { ADP } from "../../../spec/adapter.ts"
import { describeRun, runContract } from "../../adapters/runContract.ts"
import { flatNesting } from "./flatNesting.ts"
import { genericConstraintErrors } from "./genericConstraintErrors.ts"
import { keepsWritesAfterFailure } from "./keepsWritesAfterFailure.ts"
import { localeOrder } from "./localeOrder.ts"
import { reusesDatabase } from "./reusesDatabase.ts"
import { truncatesIntegers } from "./truncatesIntegers.ts"

const SEED = 7
const RUNS = 100

describe("known-bad adapters fail the contract", () => {
  it("a transaction that keeps writes after a failure fails ADP-001", async () => {
    const adapter = keepsWritesAfterFailure(makeSqliteAdapter())
    const run = await Effect.runPromise(runProperty({ property: transactionsProperty, adapter, seed: SEED, runs: RUNS }))
    expect(run.verdict, describeRun(run)).toBe("fail")
    expect(failedRequirementIds(run)).toContain(ADP.rollback)
    const contract = await Effect.runPromise(runContract(adapter, { seed: SEED, runs: RUNS }))
    expect(contract.failedIds).toContain(ADP.rollback)
  })

  it("an adapter that truncates 64-bit integers fails ADP-004", async () => {
    const adapter = truncatesIntegers(makeSqliteAdapter())
    const run = await Effect.runPromise(runProperty({ property: roundTripProperty, adapter, seed: SEED, runs: RUNS }))
    expect(run.verdict, describeRun(run)).toBe("fail")
    const divergence = counterexampleFor(run, ADP.integers)!.divergence
    expect(divergence.requirementId).toBe(ADP.integers)
    // Shrinking leaves one integer that does not fit in 32 bits.
    expect(Math.abs(Number(divergence.expected))).toBeGreaterThan(2 ** 31 - 1)
  })

  it("an adapter that orders text by locale fails ADP-008", async () => {
    const adapter = localeOrder(makeSqliteAdapter())
    const run = await Effect.runPromise(runProperty({ property: byteOrderProperty, adapter, seed: SEED, runs: RUNS }))
    expect(run.verdict, describeRun(run)).toBe("fail")
    expect(failedRequirementIds(run)).toContain(ADP.byteOrder)
    const contract = await Effect.runPromise(runContract(adapter, { seed: SEED, runs: RUNS }))
    expect(contract.failedIds).toEqual([ADP.byteOrder])
  })

  it("an adapter that runs nested transactions without savepoints fails ADP-011", async () => {
    const adapter = flatNesting(makeSqliteAdapter())
    const run = await Effect.runPromise(runProperty({ property: transactionsProperty, adapter, seed: SEED, runs: RUNS }))
    expect(run.verdict, describeRun(run)).toBe("fail")
    expect(failedRequirementIds(run)).toContain(ADP.nested)
  })

  it("an adapter that reports duplicates as a generic constraint error fails ADP-010", async () => {
    const adapter = genericConstraintErrors(makeSqliteAdapter())
    const run = await Effect.runPromise(runProperty({ property: upsertProperty, adapter, seed: SEED, runs: RUNS }))
    expect(run.verdict, describeRun(run)).toBe("fail")
    expect(failedRequirementIds(run)).toContain(ADP.uniqueViolation)
  })

  it("an adapter that hands every run the same database fails ADP-014", async () => {
    const { adapter, close } = reusesDatabase(makeSqliteAdapter())
    try {
      const run = await Effect.runPromise(runProperty({ property: upsertProperty, adapter, seed: SEED, runs: 10 }))
      expect(run.verdict, describeRun(run)).toBe("fail")
      expect(failedRequirementIds(run)).toContain(ADP.freshDatabase)
    } finally {
      await Effect.runPromise(close)
    }
  })

  it("the real adapter under the same seeds passes those properties", async () => {
    const adapter = makeSqliteAdapter()
    for (const property of [transactionsProperty, roundTripProperty, byteOrderProperty, upsertProperty]) {
      const run = await Effect.runPromise(runProperty({ property, adapter, seed: SEED, runs: RUNS }))
      expect(run.verdict, describeRun(run)).toBe("pass")
    }
  })
})
