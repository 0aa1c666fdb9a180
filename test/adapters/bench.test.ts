/**
 * Smoke test of the adapter bench on sqlite with a tiny workload: it returns plain positive numbers,
 * null for a missing raw workload, and rejects out-of-range sizes.
 */
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { benchAdapters, rawSqliteWorkload } from "../../bench/adapters.ts"

describe("benchAdapters", () => {
  it("measures raw and client rates and the open cost", async () => {
    const [withRaw, withoutRaw] = await benchAdapters(
      [{ adapter: makeSqliteAdapter(), raw: rawSqliteWorkload }, { adapter: makeSqliteAdapter() }],
      { pairs: 50, opens: 3 }
    )
    expect(withRaw).toMatchObject({ adapter: "sqlite", pairs: 50, opens: 3 })
    expect(withRaw!.rawStatementsPerSecond).toBeGreaterThan(0)
    expect(withRaw!.clientStatementsPerSecond).toBeGreaterThan(0)
    expect(withRaw!.clientWithoutSpansStatementsPerSecond).toBeGreaterThan(0)
    expect(withRaw!.openMeanMs).toBeGreaterThanOrEqual(0)
    expect(withoutRaw!.rawStatementsPerSecond).toBeNull()
  })

  it("rejects a workload size out of bounds", async () => {
    await expect(benchAdapters([{ adapter: makeSqliteAdapter() }], { pairs: 0 })).rejects.toThrow(/pairs must be/)
  })
})
