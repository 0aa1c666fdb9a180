/**
 * Situation coverage: counts add up across a subject's properties and seeds, a subject none of whose
 * properties applied has no row, rare and unreached situations are flagged, and every report format
 * (JSON schema, Markdown, HTML, the terminal summary, the certificate) carries the table.
 */
import { describe, expect, it } from "vitest"
import type { AdapterCapabilities } from "../../adapters/contract.ts"
import { renderSummary } from "../../cli/summary.ts"
import { coverageLine, flaggedSituations, SITUATION_FLAG_BELOW, situationCoverage, unreachedSituations } from "../../harness/Coverage.ts"
import type { PropertyDefinition } from "../../harness/Property.ts"
import type { ConformanceReport, PropertyRun } from "../../harness/RunResult.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { CERTIFICATION_BUDGET, makeCertificate, verifyCertificate } from "../../reports/certificate.ts"
import { renderHtml } from "../../reports/html.ts"
import { validateReport } from "../../reports/json.ts"
import { renderMarkdown } from "../../reports/markdown.ts"
import { makeReport } from "../reports/fixtures.ts"

const property = (id: string): PropertyDefinition<any> => ({ id, subject: "alarms", title: id, requirements: [], needs: [], scenario: () => { throw new Error("not generated") }, execute: () => { throw new Error("not executed") } })

const suite: SubjectSuite = {
  subject: "alarms",
  implementation: "reference",
  requirements: [],
  properties: [property("alarms/model"), property("alarms/faults")],
  situations: ["replayDrop", "parkReported", "lostReply"]
}

/** A single-connection engine without row locks (sqlite). */
const singleConnection: AdapterCapabilities = { independentConnections: false, rowLocks: false, snapshotReads: false, savepoints: true, platformAlarm: "emulated" }
/** An engine with independent connections and row locks (postgres). */
const server: AdapterCapabilities = { independentConnections: true, rowLocks: true, snapshotReads: true, savepoints: true, platformAlarm: "emulated" }

const run = (propertyId: string, situations: Record<string, number>, verdict: "pass" | "not-applicable" = "pass"): PropertyRun =>
  (verdict === "pass"
    ? { propertyId, subject: "alarms", adapter: "sqlite", seed: 1, runsRequested: 60, runsExecuted: 60, durationMs: 1, covered: {}, situations, verdict }
    : { propertyId, subject: "alarms", adapter: "sqlite", seed: 1, runsRequested: 60, runsExecuted: 0, durationMs: 0, covered: {}, verdict, missingCapabilities: ["rowLocks"] }) as PropertyRun

describe("situation coverage", () => {
  it("adds a subject's properties (and seeds) up, listing every situation in the suite's order", () => {
    const [coverage] = situationCoverage([suite], [run("alarms/model", { replayDrop: 3, parkReported: 9 }), run("alarms/faults", { replayDrop: 4 }), run("alarms/model", { parkReported: 1 })], singleConnection)
    expect(coverage).toEqual({
      subject: "alarms",
      scenarios: 180,
      situations: [{ situation: "replayDrop", scenarios: 7 }, { situation: "parkReported", scenarios: 10 }, { situation: "lostReply", scenarios: 0 }]
    })
    expect(unreachedSituations(coverage!)).toEqual(["lostReply"])
    expect(flaggedSituations(coverage!)).toEqual([])
    expect(coverageLine(coverage!)).toBe("alarms: 2 of 3 situations reached; never reached: lostReply")
  })

  it(`flags a situation reached fewer than ${SITUATION_FLAG_BELOW} times`, () => {
    const [coverage] = situationCoverage([suite], [run("alarms/model", { replayDrop: SITUATION_FLAG_BELOW - 1, parkReported: SITUATION_FLAG_BELOW, lostReply: 40 })], singleConnection)
    expect(flaggedSituations(coverage!)).toEqual([{ situation: "replayDrop", scenarios: SITUATION_FLAG_BELOW - 1 }])
    expect(coverageLine(coverage!)).toBe(`alarms: 3 of 3 situations reached, 1 fewer than ${SITUATION_FLAG_BELOW} times (replayDrop ${SITUATION_FLAG_BELOW - 1})`)
  })

  it("has no row for a subject that did not apply to the adapter, nor for a suite without situations", () => {
    expect(situationCoverage([suite], [run("alarms/model", {}, "not-applicable")], singleConnection)).toEqual([])
    expect(situationCoverage([{ ...suite, situations: [] }], [run("alarms/model", { replayDrop: 1 })], singleConnection)).toEqual([])
  })

  it("lists a situation that needs capabilities only on an adapter that has them", () => {
    const needing: SubjectSuite = { ...suite, situationNeeds: { lostReply: ["independentConnections", "rowLocks"] } }
    const runs = [run("alarms/model", { replayDrop: 6, parkReported: 7 })]
    const names = (capabilities: AdapterCapabilities) => situationCoverage([needing], runs, capabilities)[0]!.situations.map((count) => count.situation)
    expect(names(singleConnection)).toEqual(["replayDrop", "parkReported"])
    expect(names(server)).toEqual(["replayDrop", "parkReported", "lostReply"])
    expect(unreachedSituations(situationCoverage([needing], runs, server)[0]!)).toEqual(["lostReply"])
  })
})

describe("the coverage table in every report format", () => {
  const withCoverage = (): ConformanceReport => {
    const report = makeReport()
    const [first, ...rest] = report.adapters
    const coverage = situationCoverage([suite], [run("alarms/model", { replayDrop: 2, parkReported: 30 })], singleConnection)
    return { ...report, adapters: [{ ...first!, coverage }, ...rest] }
  }

  it("validates against the report schema and renders in Markdown, HTML and the summary", () => {
    const report = withCoverage()
    expect(validateReport(JSON.parse(JSON.stringify(report))).valid).toBe(true)
    const markdown = renderMarkdown(report)
    expect(markdown).toContain("### Situation coverage")
    expect(markdown).toMatch(/\| <code>replayDrop<\/code> \| \*\*2\*\* \|/)
    expect(markdown).toMatch(/\| <code>lostReply<\/code> \| 0 ❗ \|/)
    const html = renderHtml(report)
    expect(html).toContain(`<td class="num cov-rare" title="reached fewer than ${SITUATION_FLAG_BELOW} times">2</td>`)
    expect(html).toContain(`<td class="num cov-unreached" title="never reached">0</td>`)
    expect(renderSummary(report)).toContain("COVERAGE alarms on sqlite: 2 of 3 situations reached, 1 fewer than 5 times (replayDrop 2); never reached: lostReply")
  })

  it("goes into the certificate, sealed, with the situations never reached", () => {
    const report = withCoverage()
    const single = { ...report, kind: "certify" as const, adapters: [report.adapters[0]!] }
    const certificate = makeCertificate({ report: single, kind: "adapter", budget: CERTIFICATION_BUDGET, seeds: [1, 2, 3], filtered: false })
    expect(certificate.body.coverage).toEqual([{ subject: "alarms", situations: 3, reached: 2, unreached: ["lostReply"] }])
    const verified = verifyCertificate(JSON.parse(JSON.stringify(certificate)), { version: report.suite.version, hash: report.suite.hash })
    expect(verified.ok).toBe(true)
  })
})
