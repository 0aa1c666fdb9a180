/**
 * Adapters side by side (`adapterConcurrency`): the report is the same, byte for byte apart from the
 * wall-clock fields, as when the adapters run one at a time, and keeps the adapters in the order given;
 * an out-of-range concurrency is a typed options error; `run` picks one adapter per core.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { sqliteAdapter } from "../../adapters/sqlite/index.ts"
import { runAdapterConcurrency } from "../../cli/commands/run.ts"
import { type ConformanceOptions, MAX_ADAPTER_CONCURRENCY, runConformance } from "../../harness/Conformance.ts"
import { adapterSuite } from "../../properties/plugins.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { pgliteAdapter } from "../../adapters/pglite/index.ts"
import { withoutWallClock } from "../support/wallClock.ts"

const options = (adapterConcurrency: number): ConformanceOptions => ({
  kind: "run",
  // Two adapters of different engines, so each property run of the one overlaps the other's.
  adapters: [sqliteAdapter, pgliteAdapter],
  suites: [adapterSuite, alarmsSuite()],
  runs: 4,
  seed: 7,
  suiteHash: "unhashed",
  adapterConcurrency
})

describe("adapters side by side", () => {
  it("give the same report as one at a time, in the order given", async () => {
    const sequential = await Effect.runPromise(runConformance(options(1)))
    const sideBySide = await Effect.runPromise(runConformance(options(2)))
    expect(sideBySide.adapters.map((adapter) => adapter.fingerprint.name)).toEqual(sequential.adapters.map((adapter) => adapter.fingerprint.name))
    expect(withoutWallClock(sideBySide)).toEqual(withoutWallClock(sequential))
    expect(sequential.summary.fail + sequential.summary.error).toBe(0)
    expect(sequential.summary.pass).toBeGreaterThan(20)
  }, 120_000)

  it("refuses a concurrency out of range with a typed error that says what to pass", async () => {
    for (const bad of [0, 1.5, MAX_ADAPTER_CONCURRENCY + 1]) {
      const error = await Effect.runPromise(Effect.flip(runConformance(options(bad))))
      expect(error._tag).toBe("InvalidOptionsError")
      expect(error.message).toContain(`from 1 to ${MAX_ADAPTER_CONCURRENCY}, got ${bad}`)
    }
  })

  it("run checks one adapter per core, never more than there are adapters", () => {
    expect(runAdapterConcurrency(4, 2)).toBe(2)
    expect(runAdapterConcurrency(1, 16)).toBe(1)
    expect(runAdapterConcurrency(20, 64)).toBe(MAX_ADAPTER_CONCURRENCY)
    expect(runAdapterConcurrency(3, 0)).toBe(1)
  })
})
