import { describe, expect, it } from "vitest"
import { interleavingGuarantee, pctSituation } from "../../harness/PctBound.ts"
import type { ConformanceReport, PropertyRun } from "../../harness/RunResult.ts"
import { renderHtml } from "../../reports/html.ts"
import { interleavingRows, interleavingSummaryLines } from "../../reports/interleavingTable.ts"
import { renderJson, validateReport } from "../../reports/json.ts"
import { renderMarkdown } from "../../reports/markdown.ts"
import { makeReport } from "./fixtures.ts"

/** The fixture report with its first property run declared step-scheduled (n=2, k=4, d≤3) and 10 PCT runs of depth 2. */
const withInterleaving = (): ConformanceReport => {
  const report = makeReport()
  const [first, ...others] = report.adapters
  const [run, ...runs] = first!.properties
  const situations = { ...run!.situations, [pctSituation(2)]: 10 }
  const scheduled = { ...run!, situations, interleaving: interleavingGuarantee({ operations: 2, steps: 4, maxDepth: 3 }, situations) } as PropertyRun
  return { ...report, adapters: [{ ...first!, properties: [scheduled, ...runs] }, ...others] }
}

describe("interleaving guarantee in reports", () => {
  const report = withInterleaving()

  it("report.json carries n, k, d and each depth's bound, and validates against the schema", () => {
    const json = renderJson(report)
    expect(validateReport(JSON.parse(json)).valid).toBe(true)
    expect(json).toContain('"perRunProbability": 0.125')
    expect(json).toContain('"missProbability": 0.263076')
  })

  it("Markdown and HTML state the bound with its scope; a report without step-scheduled properties has no section", () => {
    const markdown = renderMarkdown(report)
    expect(markdown).toContain("### Interleaving guarantee")
    expect(markdown).toContain("exactly depth d in the order of the steps the hook points expose")
    expect(markdown).toMatch(/\| 2 \| 4 \| p ≥ 1\/2 \(50\.0%\) per PCT run; 0 runs; miss ≤ 100% \| p ≥ 1\/8 \(12\.5%\) per PCT run; 10 runs; miss ≤ 26\.3% \| p ≥ 1\/32 /)
    const html = renderHtml(report)
    expect(html).toContain(`<section id="interleaving"><h2>Interleaving guarantee</h2>`)
    expect(html).toContain("p ≥ 1/8 (12.5%) per PCT run; 10 runs; miss ≤ 26.3%")
    expect(renderMarkdown(makeReport())).not.toContain("Interleaving guarantee")
    expect(renderHtml(makeReport())).not.toContain(`id="interleaving"`)
  })

  it("recomputes the bound from the run's situations (a merged report counts every shard's runs)", () => {
    const [row] = interleavingRows(report.adapters)
    expect(row?.guarantee.bounds.map((bound) => bound.pctRuns)).toEqual([0, 10, 0])
    expect(interleavingSummaryLines(report.adapters)).toEqual([`INTERLEAVING ${row!.propertyId} on ${row!.adapter}: n=2 k=4, PCT runs 0/10/0 (d=1/2/3), miss ≤ 100%/26.3%/100%`])
  })
})
