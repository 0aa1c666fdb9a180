/**
 * The adapter contract passes on the built-in sqlite and pglite adapters, through the real runner,
 * and every requirement that applies is exercised.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { makePgliteAdapterFromSession, makePgliteSession } from "../../adapters/pglite/index.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { adapterRequirements } from "../../spec/adapter.ts"
import { PGlite } from "@electric-sql/pglite"
import { describeRun, runContract } from "./runContract.ts"

const expectContractPasses = async (adapter: StorageAdapter, runs: number) => {
  const result = await Effect.runPromise(runContract(adapter, { seed: 20261129, runs }))
  for (const run of result.runs) {
    expect(["pass", "not-applicable"], describeRun(run)).toContain(run.verdict)
  }
  const covered = new Set(result.runs.flatMap((run) => Object.keys(run.covered)))
  const applicable = adapterRequirements.filter((requirement) =>
    requirement.needs.every((need) => need !== "independentConnections" || adapter.capabilities.independentConnections)
  )
  for (const requirement of applicable) expect(covered.has(requirement.id), `${requirement.id} exercised`).toBe(true)
  return result
}

describe("adapter contract", () => {
  it("passes on sqlite (in memory)", async () => {
    const result = await expectContractPasses(makeSqliteAdapter(), 100)
    const isolation = result.runs.find((run) => run.propertyId === "adapter/no-dirty-reads")
    expect(isolation?.verdict).toBe("not-applicable")
    expect(isolation?.verdict === "not-applicable" ? isolation.missingCapabilities : undefined).toEqual(["independentConnections"])
  })

  describe("pglite", () => {
    let pg: PGlite
    beforeAll(async () => {
      pg = await PGlite.create()
    })
    afterAll(async () => {
      await pg.close()
    })
    it("passes on pglite", async () => {
      await expectContractPasses(makePgliteAdapterFromSession(makePgliteSession(pg)), 20)
    })
  })
})
