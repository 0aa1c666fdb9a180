/**
 * The terminal summary of `run` and `certify`: failures come before unknowns, unknowns collapse into
 * one line per property, certify's summary names every seed, and counts agree with their nouns.
 */
import { describe, expect, it } from "vitest"
import type { ConformanceReport, RequirementResult } from "../../harness/RunResult.ts"
import { renderSummary } from "../../cli/summary.ts"

const unknown = (id: string, propertyIds: ReadonlyArray<string>, coveredRuns = 0): RequirementResult => ({
  requirementId: id,
  subject: "alarms",
  title: `title of ${id}`,
  verdict: "unknown",
  reason: coveredRuns === 0 ? "reached by 0 of 600 scenarios" : `${coveredRuns} of 600 scenarios reached it; all held`,
  propertyIds,
  coveredRuns
})

const failed = (id: string, steps: number): RequirementResult => ({
  requirementId: id,
  subject: "alarms",
  title: `title of ${id}`,
  verdict: "fail",
  reason: `${id} diverged (failed in 3 of 40 scenarios that reached it)`,
  propertyIds: ["alarms/timeline"],
  coveredRuns: 40,
  counterexample: { trace: { steps: Array.from({ length: steps }, (_, index) => ({ index })), divergence: null, covered: [] }, replayToken: `dc1.token-${id}` } as never
})

const reportOf = (requirements: ReadonlyArray<RequirementResult>, runs = 200): ConformanceReport => {
  const summary = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
  for (const requirement of requirements) summary[requirement.verdict]++
  return {
    options: { subjects: ["alarms"], adapters: ["vendor"], runs, seed: 1 },
    adapters: [{ fingerprint: { name: "vendor", engine: "sqlite", engineVersion: "3" }, requirements, properties: [] }],
    summary
  } as unknown as ConformanceReport
}

describe("summary ordering", () => {
  it("prints every failure before any unknown, and one line per property for the unknowns", () => {
    const report = reportOf([
      unknown("ALM-001", ["alarms/config"]),
      unknown("ALM-002", ["alarms/config"]),
      unknown("ALM-003", ["alarms/config"]),
      failed("ALM-004", 5),
      unknown("ALM-005", ["alarms/timeline"]),
      unknown("ALM-006", ["alarms/timeline"]),
      failed("ALM-007", 2)
    ])
    const lines = renderSummary(report).split("\n")
    const firstUnknown = lines.findIndex((line) => line.includes("UNKNOWN"))
    const lastFail = lines.map((line) => line.startsWith("FAIL ")).lastIndexOf(true)
    expect(lastFail).toBeGreaterThan(0)
    expect(firstUnknown).toBeGreaterThan(lastFail)
    const unknownLines = lines.filter((line) => line.includes("UNKNOWN"))
    expect(unknownLines).toEqual([
      "UNKNOWN ALM-001, ALM-002, ALM-003 on vendor (alarms/config): reached by 0 of 600 scenarios",
      "UNKNOWN ALM-005, ALM-006 on vendor (alarms/timeline): reached by 0 of 600 scenarios"
    ])
  })

  it("gives a collapsed group one reason when its requirements' reasons differ", () => {
    const report = reportOf([
      { ...unknown("ALM-010", ["alarms/timeline"]), reason: "the time budget ran out (alarms/timeline ran 71 of 200); reached by 0 of 71 scenarios" },
      { ...unknown("ALM-011", ["alarms/timeline"], 5), reason: "the time budget ran out (alarms/timeline ran 71 of 200); 5 of 71 scenarios reached it; all held" }
    ])
    expect(renderSummary(report)).toContain(
      "UNKNOWN ALM-010, ALM-011 on vendor (alarms/timeline): the time budget ran out (alarms/timeline ran 71 of 200); 1 of 2 never reached\n"
    )
  })
})

describe("summary wording", () => {
  it("names every seed of a certify run", () => {
    const text = renderSummary(reportOf([]), { seeds: [1, 2, 3] })
    expect(text).toContain("seeds 1, 2, 3, 200 runs per property with each")
    expect(text).not.toMatch(/\bseed 1\b/)
  })

  it("writes 1 run and 1 step, not 1 runs and 1 steps", () => {
    const text = renderSummary(reportOf([failed("ALM-004", 1)], 1))
    expect(text).toContain("  1 step; replay: npx durable-conformance replay dc1.token-ALM-004 --step")
    expect(text).toContain("(seed 1, 1 run per property)")
    expect(text).not.toMatch(/\b1 (runs|steps)\b/)
  })
})
