/**
 * The deliberately broken example adapter (examples/nonconforming-adapter) fails exactly the
 * requirements its two bugs break, each with a minimized counterexample and a replay token.
 */
import { Effect } from "effect"
import initSqlJs from "sql.js"
import { describe, expect, it } from "vitest"
import { decodeReplayToken } from "../../harness/ReplayToken.ts"
import { makeNonconformingAdapter } from "../../examples/nonconforming-adapter/index.ts"
import { runContract } from "../adapters/runContract.ts"

const engine = await initSqlJs()

describe("examples/nonconforming-adapter", () => {
  it("fails ADP-001 (no rollback), ADP-004 and ADP-013 (32-bit integers) with counterexamples", async () => {
    const result = await Effect.runPromise(runContract(makeNonconformingAdapter(engine), { seed: 20261129, runs: 60 }))
    // ADP-013: the platform alarm slot holds epoch milliseconds, which the 32-bit read mangles. The
    // runner searches the whole budget, so the consequences inside transactions are reported too:
    // ADP-002 and ADP-012 (a wrapped integer read back), ADP-011 (a failed nested transaction kept).
    expect(result.failedIds).toEqual(["ADP-001", "ADP-002", "ADP-004", "ADP-011", "ADP-012", "ADP-013"])
    for (const run of result.runs) {
      if (run.verdict !== "fail") continue
      for (const counterexample of run.counterexamples) {
        expect(counterexample.divergence.explanation.length).toBeGreaterThan(0)
        expect(counterexample.trace.steps.length).toBeGreaterThan(0)
        expect(Effect.runSync(decodeReplayToken(counterexample.replayToken)).propertyId).toBe(run.propertyId)
      }
    }
  }, 60_000)
})
