/**
 * `mergeShardReports` on hand-made shards of one property run: the earliest failing position wins
 * across shards, later failures count as known, an adapter error cuts the counts at its position, and
 * inconsistent shard sets are refused. `test/cli/shard-merge.test.ts` checks real runs end to end.
 */
import { describe, expect, it } from "vitest"
import type { AdapterFingerprint } from "../../adapters/contract.ts"
import type { ConformanceReport, Counterexample, PropertyRun } from "../../harness/RunResult.ts"
import { inShard, parseShard, type RunSignature, shardPosition, shardRunCount } from "../../harness/Shard.ts"
import { mergeShardReports, ShardMergeError } from "../../harness/ShardMerge.ts"
import { findSuite } from "../../properties/registry.ts"

const suites = [findSuite("adapter")!]
const PROPERTY = "adapter/transactions"
const RUNS = 10
const COUNT = 3
const fingerprint: AdapterFingerprint = {
  name: "sqlite", adapterVersion: "1", engine: "sqlite", engineVersion: "3", dialect: "sqlite",
  capabilities: { independentConnections: false, rowLocks: false, snapshotReads: false, savepoints: true, platformAlarm: "emulated" }
}

const ok: RunSignature = { covered: ["ADP-001", "ADP-002", "ADP-011", "ADP-014"], situations: [] }
const bad = (requirementId: string): RunSignature => ({ ...ok, divergence: requirementId })

const counterexample = (requirementId: string, position: number): Counterexample =>
  ({ propertyId: PROPERTY, divergence: { requirementId }, runsToDetect: position + 1, replayToken: `token-${requirementId}-${position}` }) as unknown as Counterexample

/** Shard `index` of a run whose scenario at each position has `signatureAt(position)`; `errorAt` breaks the adapter there. */
const shardReport = (index: number, signatureAt: (position: number) => RunSignature, errorAt?: number): ConformanceReport => {
  const shard = { index, count: COUNT }
  const erred = errorAt !== undefined && inShard(shard, errorAt) && errorAt < RUNS
  const positions = Array.from({ length: shardRunCount(shard, RUNS) }, (_, ordinal) => shardPosition(shard, ordinal)).filter((p) => !erred || p < errorAt!)
  const signatures: Array<RunSignature> = []
  const runs: Array<[number, number]> = []
  const firsts = new Map<string, number>()
  const covered = new Map<string, number>()
  for (const position of positions) {
    const signature = signatureAt(position)
    let at = signatures.findIndex((known) => JSON.stringify(known) === JSON.stringify(signature))
    if (at < 0) at = signatures.push(signature) - 1
    runs.push([at, 1])
    for (const id of signature.covered) covered.set(id, (covered.get(id) ?? 0) + 1)
    if (signature.divergence !== undefined && !firsts.has(signature.divergence)) firsts.set(signature.divergence, position)
  }
  const base = {
    propertyId: PROPERTY, subject: "adapter", adapter: "sqlite", seed: 1, runsRequested: shardRunCount(shard, RUNS),
    runsExecuted: positions.length + (erred ? 1 : 0), durationMs: 1, covered: Object.fromEntries(covered),
    shardFacts: { signatures, runs, ...(erred ? { errorAt } : {}) }
  }
  const cxs = [...firsts].map(([id, position]) => counterexample(id, position))
  const run = (erred
    ? { ...base, verdict: "error", error: { message: "adapter broke", hint: "fix it" } }
    : cxs.length > 0
      ? { ...base, verdict: "fail", counterexamples: cxs, knownFailures: {} }
      : { ...base, verdict: "pass" }) as PropertyRun
  return {
    schemaVersion: 2, kind: "run", suite: { name: "s", version: "1", hash: "h" }, harnessVersion: "1",
    startedAt: "2026-12-01T00:00:00.000Z", finishedAt: "2026-12-01T00:00:01.000Z",
    environment: { node: "v20", platform: "linux", arch: "x64", ci: false },
    options: { subjects: ["adapter"], adapters: ["sqlite"], runs: RUNS, seed: 1 },
    adapters: [{ fingerprint, properties: [run], requirements: [] }],
    summary: { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 },
    shard: { index, count: COUNT, runs: RUNS, digest: "0".repeat(64) }
  }
}

const shardsOf = (signatureAt: (position: number) => RunSignature, errorAt?: number) =>
  [3, 1, 2].map((index) => ({ source: `shard-${index}.json`, report: shardReport(index, signatureAt, errorAt) }))

const mergedRun = (report: ConformanceReport): PropertyRun => report.adapters[0]!.properties[0]!

describe("mergeShardReports", () => {
  it("parses K/N and splits positions", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 })
    for (const wrong of ["0/4", "5/4", "2", "a/b", "1/0", "-1/2"]) expect(parseShard(wrong)).toBeUndefined()
    expect([1, 2, 3].map((index) => shardRunCount({ index, count: 3 }, 10))).toEqual([4, 3, 3])
  })

  it("picks the earliest failing position across shards and counts the later ones as known", () => {
    // ADP-001 fails at 4 (shard 2) and 8 (shard 3) and 9 (shard 1); ADP-002 at 6 (shard 1).
    const at = (position: number) => (position === 4 || position === 8 || position === 9 ? bad("ADP-001") : position === 6 ? bad("ADP-002") : ok)
    const run = mergedRun(mergeShardReports(shardsOf(at), suites))
    expect(run.verdict).toBe("fail")
    if (run.verdict !== "fail") return
    expect(run.counterexamples.map((cx) => [cx.divergence.requirementId, cx.runsToDetect])).toEqual([["ADP-001", 5], ["ADP-002", 7]])
    expect(run.knownFailures).toEqual({ "ADP-001": 2, "ADP-002": 0 })
    expect(run.runsRequested).toBe(RUNS)
    expect(run.runsExecuted).toBe(RUNS)
    expect(run.shardFacts).toBeUndefined()
  })

  it("cuts the counts at the first adapter error, as the unsharded search stops there", () => {
    const merged = mergedRun(mergeShardReports(shardsOf(() => ok, 5), suites))
    expect(merged.verdict).toBe("error")
    // Positions 0..4 ran (the fifth broke the adapter); 6..9 in other shards are not counted.
    expect(merged.runsExecuted).toBe(6)
    expect(merged.covered["ADP-001"]).toBe(5)
  })

  it("refuses a counterexample that is not where the facts put the failure", () => {
    const inputs = shardsOf((position) => (position === 4 ? bad("ADP-001") : ok))
    const forged = inputs.map((input) => {
      if (input.report.shard!.index !== 2) return input
      const run = mergedRun(input.report) as PropertyRun & { counterexamples: Array<Counterexample> }
      const moved = { ...run, counterexamples: [counterexample("ADP-001", 7)] } as PropertyRun
      return { ...input, report: { ...input.report, adapters: [{ ...input.report.adapters[0]!, properties: [moved] }] } }
    })
    expect(() => mergeShardReports(forged, suites)).toThrow(ShardMergeError)
    expect(() => mergeShardReports(forged, suites)).toThrow(/no counterexample of ADP-001 at scenario 5/)
  })

  it("refuses facts that do not add up to the executed scenarios", () => {
    const inputs = shardsOf(() => ok)
    const run = mergedRun(inputs[0]!.report)
    const edited = { ...run, runsExecuted: run.runsExecuted - 1 }
    const broken = [{ ...inputs[0]!, report: { ...inputs[0]!.report, adapters: [{ ...inputs[0]!.report.adapters[0]!, properties: [edited] }] } }, ...inputs.slice(1)]
    expect(() => mergeShardReports(broken, suites)).toThrow(/do not match its 2 executed scenarios/)
  })
})
