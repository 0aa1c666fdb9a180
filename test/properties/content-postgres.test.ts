/**
 * The content races on a real PostgreSQL server at the gate's budget and seed: attach, grant, upload and
 * detach run on their own connections against a sweep on another, and the row lock is observed
 * ordering them (`pg_blocking_pids`): CNT-012 passes and was reached, as were (ii) and (iii).
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { propertySeed } from "../../harness/Conformance.ts"
import { runProperty } from "../../harness/Runner.ts"
import { contentSuite } from "../../properties/content/index.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"
import { contentWithoutHookPoints } from "../allowed/content/variants.ts"

const postgres = usePostgresAdapter()

describe("content races on postgres", () => {
  it("truly concurrent races pass, and the row lock is seen ordering them", async () => {
    const property = contentSuite().properties.find((candidate) => candidate.id === "content/races")!
    const run = await Effect.runPromise(runProperty({ property, adapter: postgres(), seed: propertySeed(DEFAULT_SEED, property.id, postgres().name), runs: DEFAULT_RUNS }))
    expect(run.verdict, JSON.stringify(run).slice(0, 2000)).toBe("pass")
    expect(run.covered["CNT-012"] ?? 0).toBeGreaterThan(0)
    expect(run.covered["CNT-010"] ?? 0).toBeGreaterThan(0)
    expect(run.covered["CNT-011"] ?? 0).toBeGreaterThan(0)
  }, 120_000)

  it("without hook points, the storage boundary's points place and hold the sweep: the races pass and credit CNT-010, CNT-011 and CNT-012", async () => {
    const property = contentSuite(contentWithoutHookPoints.implementation).properties.find((candidate) => candidate.id === "content/races")!
    const run = await Effect.runPromise(runProperty({ property, adapter: postgres(), seed: propertySeed(DEFAULT_SEED, property.id, postgres().name), runs: DEFAULT_RUNS }))
    expect(run.verdict, JSON.stringify(run).slice(0, 2000)).toBe("pass")
    for (const requirement of ["CNT-010", "CNT-011", "CNT-012"]) expect(run.covered[requirement] ?? 0, requirement).toBeGreaterThan(0)
  }, 120_000)
})
