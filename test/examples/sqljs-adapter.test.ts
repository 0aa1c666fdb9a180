/**
 * The worked vendor adapter (examples/sqljs-adapter) passes the adapter contract and the alarms suite
 * through the real runner at a modest budget, and declares what it reports.
 */
import { Effect } from "effect"
import initSqlJs from "sql.js"
import { describe, expect, it } from "vitest"
import { runProperty } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { makeSqljsAdapter, sqljsCapabilities } from "../../examples/sqljs-adapter/index.ts"
import { describeRun, runContract } from "../adapters/runContract.ts"

const engine = await initSqlJs()

describe("examples/sqljs-adapter", () => {
  it("reports its fingerprint from the live engine", async () => {
    const fingerprint = await Effect.runPromise(makeSqljsAdapter(engine).fingerprint)
    expect(fingerprint).toMatchObject({ name: "sqljs", engine: "sqlite (sql.js)", adapterVersion: "sql.js 1.17.0", dialect: "sqlite", capabilities: sqljsCapabilities })
    expect(fingerprint.engineVersion).toMatch(/^3\.\d+\.\d+$/)
  })

  it("passes the adapter contract", async () => {
    const result = await Effect.runPromise(runContract(makeSqljsAdapter(engine), { seed: 20261129, runs: 60 }))
    for (const run of result.runs) expect(["pass", "not-applicable"], describeRun(run)).toContain(run.verdict)
    expect(result.failedIds).toEqual([])
    const isolation = result.runs.find((run) => run.propertyId === "adapter/no-dirty-reads")
    expect(isolation?.verdict === "not-applicable" ? isolation.missingCapabilities : undefined).toEqual(["independentConnections"])
  }, 60_000)

  it("passes the alarms suite", async () => {
    const adapter = makeSqljsAdapter(engine)
    for (const property of alarmsSuite().properties) {
      const run = await Effect.runPromise(runProperty({ property, adapter, seed: 7, runs: 15 }))
      expect(run.verdict, describeRun(run)).toBe("pass")
    }
  }, 60_000)
})
