/**
 * The adapter contract on the `postgres` adapter (a real server from the vitest globalSetup): the only
 * built-in with independent connections, so the only one where ADP-003 (no dirty reads) applies.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makePostgresAdapter } from "../../adapters/postgres/index.ts"
import { ADP } from "../../spec/adapter.ts"
import { describeRun, runContract } from "./runContract.ts"

describe("adapter contract on postgres", () => {
  it("passes, including no dirty reads across connections", async () => {
    const result = await Effect.runPromise(Effect.scoped(Effect.flatMap(makePostgresAdapter().make, (adapter) =>
      runContract(adapter, { seed: 20261129, runs: 20 }))))
    for (const run of result.runs) expect(run.verdict, describeRun(run)).toBe("pass")
    const isolation = result.runs.find((run) => run.propertyId === "adapter/no-dirty-reads")
    expect(isolation?.covered[ADP.noDirtyReads]).toBeGreaterThan(0)
  })
})
