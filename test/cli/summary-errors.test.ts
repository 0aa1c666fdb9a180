/**
 * ERROR verdicts on stdout collapse like unknowns: one line per property and cause, after the
 * failures and before the unknowns, so an adapter that broke does not bury the failures under two
 * lines per requirement.
 */
import { describe, expect, it } from "vitest"
import type { ConformanceReport, RequirementResult } from "../../harness/RunResult.ts"
import { renderSummary } from "../../cli/summary.ts"

const MAKE_FAILED = "adapter vendor could not be made: connection refused (is the server running?)"

const errored = (id: string, propertyIds: ReadonlyArray<string>, broken: string, cause = MAKE_FAILED): RequirementResult => ({
  requirementId: id,
  subject: "alarms",
  title: `title of ${id}`,
  verdict: "error",
  reason: `${broken}: ${cause}`,
  propertyIds,
  coveredRuns: 0
})

const other = (id: string, verdict: "fail" | "unknown"): RequirementResult => ({
  requirementId: id,
  subject: "alarms",
  title: `title of ${id}`,
  verdict,
  reason: verdict === "fail" ? `${id} diverged (failed in 1 of 9 scenarios that reached it)` : "reached by 0 of 200 scenarios",
  propertyIds: ["alarms/config"],
  coveredRuns: verdict === "fail" ? 9 : 0,
  ...(verdict === "fail" ? { counterexample: { trace: { steps: [{ index: 0 }], divergence: null, covered: [] }, replayToken: `dc1.token-${id}` } as never } : {})
})

const reportOf = (requirements: ReadonlyArray<RequirementResult>): ConformanceReport => {
  const summary = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
  for (const requirement of requirements) summary[requirement.verdict]++
  return {
    options: { subjects: ["alarms"], adapters: ["vendor"], runs: 200, seed: 1 },
    adapters: [{ fingerprint: { name: "vendor", engine: "sqlite", engineVersion: "3" }, requirements, properties: [] }],
    summary
  } as unknown as ConformanceReport
}

describe("ERROR lines in the summary", () => {
  const report = reportOf([
    errored("ALM-001", ["alarms/timeline"], "alarms/timeline"),
    other("ALM-002", "unknown"),
    errored("ALM-003", ["alarms/timeline"], "alarms/timeline"),
    errored("ALM-004", ["alarms/timeline", "alarms/dispatch"], "alarms/dispatch"),
    errored("ALM-005", ["alarms/dispatch"], "alarms/dispatch"),
    errored("ALM-006", ["alarms/dispatch"], "alarms/dispatch", "a scenario (its statements) did not finish within 30000 ms\nthe adapter hung"),
    other("ALM-007", "fail")
  ])
  const lines = renderSummary(report).split("\n")

  it("collapses into one line per property and cause, naming the property that broke", () => {
    expect(lines.filter((line) => line.startsWith("ERROR "))).toEqual([
      `ERROR ALM-001, ALM-003 on vendor (alarms/timeline): ${MAKE_FAILED}`,
      `ERROR ALM-004, ALM-005 on vendor (alarms/dispatch): ${MAKE_FAILED}`,
      "ERROR ALM-006 on vendor (alarms/dispatch): a scenario (its statements) did not finish within 30000 ms the adapter hung"
    ])
    // No second line per requirement: the cause is on the ERROR line itself.
    expect(lines.filter((line) => line.includes(MAKE_FAILED))).toHaveLength(2)
  })

  it("prints failures first, then errors, then unknowns", () => {
    const firstOf = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix))
    expect(firstOf("FAIL ALM-007")).toBeGreaterThan(-1)
    expect(firstOf("ERROR ")).toBeGreaterThan(firstOf("FAIL ALM-007"))
    expect(firstOf("UNKNOWN ")).toBeGreaterThan(lines.map((line) => line.startsWith("ERROR ")).lastIndexOf(true))
  })

  it("keeps a reason without a property prefix whole", () => {
    const text = renderSummary(reportOf([{ ...errored("ALM-010", ["alarms/config"], "x"), reason: "the adapter's process exited with code 13" }]))
    expect(text).toContain("ERROR ALM-010 on vendor (alarms/config): the adapter's process exited with code 13\n")
  })
})
