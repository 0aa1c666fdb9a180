/**
 * Reports a person can read: a timeline whose steps all share one virtual instant is an ordered list,
 * not a long empty axis; diffs compare normalized values, so a difference of representation only
 * (`exit: "failure"` against `{ error: … }`) is never highlighted.
 */
import { describe, expect, it } from "vitest"
import type { StepRecord } from "../../harness/Property.ts"
import { diffStates, outcomeKind, sameValue } from "../../reports/diff.ts"
import { renderHtml } from "../../reports/html.ts"
import { renderMarkdown } from "../../reports/markdown.ts"
import { renderTimeline } from "../../reports/timeline.ts"
import { T0_MS } from "./fixtures.ts"
import { instantSteps, makeManyStepReport, manySteps } from "./manyStepFixtures.ts"

const failureSection = (html: string, id: string): string => {
  const start = html.indexOf(`<article class="failure" id="${id}">`)
  expect(start).toBeGreaterThan(0)
  return html.slice(start, html.indexOf("</article>", start))
}

describe("a timeline at one virtual instant", () => {
  it("renders as an ordered list in execution order, with the fault and the divergence marked", () => {
    const markup = renderTimeline(instantSteps, { label: "ADP-001 on sqlite", divergentIndex: 3, stepIdPrefix: "s-" })
    expect(markup).not.toContain("<svg")
    expect(markup).toContain(`<ol class="tl-list">`)
    expect(markup).toContain("All 4 steps happen at the same virtual time, +0s (2026-01-01T00:00:00.000Z), in this order:")
    const items = [...markup.matchAll(/<li class="([^"]*)" value="(\d+)"[^>]*><a href="#s-\d+"><code>([^<]*)<\/code>/g)].map((m) => [m[1], Number(m[2]), m[3]])
    expect(items).toEqual([
      ["tl-item", 0, "createTable"],
      ["tl-item", 1, "commitBaseline"],
      ["tl-item tl-fault", 2, "injectFailure"],
      ["tl-item tl-divergent", 3, "endTransaction"]
    ])
    expect(markup).toContain("⚡ fault: fail before statement 0")
    expect(markup).toContain("⟵ implementation and model diverge here")
  })

  it("keeps the axis for steps spread over time, and a single step is a list of one", () => {
    expect(renderTimeline(manySteps(), { label: "many" })).toMatch(/^<svg class="timeline"/)
    const one: StepRecord = { index: 0, operation: "op", args: {}, virtualTimeMs: T0_MS, implementation: null, model: null }
    expect(renderTimeline([one], { label: "one" })).toContain("One step, at virtual time +0s (2026-01-01T00:00:00.000Z):")
  })

  it("is what the HTML report shows for such a failure, while the other failure keeps its SVG", () => {
    const html = renderHtml(makeManyStepReport())
    const instant = failureSection(html, "failure-postgres-adp-001")
    expect(instant).not.toContain(`<svg class="timeline"`)
    expect(instant.match(/<li class="tl-item/g)).toHaveLength(4)
    expect(instant).not.toContain("x axis: virtual time")
    expect(failureSection(html, "failure-postgres-alm-021").match(/<svg class="timeline"/g)).toHaveLength(1)
  })
})

describe("normalized diffs", () => {
  it("treats an outcome written as a word and a recorded exit of the same kind as equal", () => {
    expect(sameValue("failure", { error: "ScenarioFailure", message: "scenario failure inside the transaction" })).toBe(true)
    expect(sameValue("failure", { defect: "boom" })).toBe(true)
    expect(sameValue("success", { ok: null })).toBe(true)
    expect(sameValue({ _tag: "Failure", error: "X" }, "failure")).toBe(true)
    expect(sameValue("failure", { ok: null })).toBe(false)
    expect(sameValue("success", { error: "X" })).toBe(false)
    // Two recorded exits are compared as they are: no word, no normalization.
    expect(sameValue({ error: "A" }, { error: "B" })).toBe(false)
    expect(outcomeKind({ error: "A", message: "m", extra: 1 })).toBeUndefined()
  })

  it("highlights only the real difference of a step's result", () => {
    const step = instantSteps[3]!
    const diff = diffStates(step.model, step.implementation)
    expect(diff.differing).toBe(1)
    expect(diff.rows.filter((row) => row.differs).map((row) => row.path)).toEqual(["rows[0][1]"])
    expect(diff.rows.find((row) => row.path === "exit")).toMatchObject({ differs: false, representationOnly: true })
    expect(diffStates({ exit: "success" }, { exit: { ok: null } }).differing).toBe(0)
  })

  it("shows the exit row as the same outcome in HTML and leaves it out of Markdown's differences", () => {
    const report = makeManyStepReport()
    const instant = failureSection(renderHtml(report), "failure-postgres-adp-001")
    expect(instant).not.toMatch(/<tr class="diff"><td class="path mono">exit<\/td>/)
    expect(instant).toContain(`<tr class="same repr" title="the same outcome, written differently"><td class="path mono">exit</td>`)
    expect(instant).toMatch(/<tr class="diff"><td class="path mono">rows\[0\]\[1\]<\/td>/)
    const markdown = renderMarkdown(report)
    const row = markdown.split("\n").find((line) => line.includes("endTransaction"))!
    expect(row).toContain("result differs: <code>rows[0][1]</code>")
    expect(row).not.toContain("<code>exit</code>")
  })
})
