import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { renderMarkdown, writeStepSummary } from "../../reports/markdown.ts"
import { makeReport, REPLAY_TOKEN } from "./fixtures.ts"

describe("renderMarkdown", () => {
  const markdown = renderMarkdown(makeReport())

  it("has a headline and a verdict-count row per adapter", () => {
    expect(markdown.split("\n")[0]).toBe("## ❌ durable-conformance run: 1 failing, 1 error, 1 unknown")
    expect(markdown).toContain("| <code>sqlite</code> | better-sqlite3 3.50.4 | 4 | 0 | 1 | 0 | 0 |")
    expect(markdown).toContain("| <code>postgres</code> | PostgreSQL 18.0 | 2 | **1** | 0 | 1 | **1** |")
  })

  it("explains the failure in one sentence, gives the replay command and a step table", () => {
    expect(markdown).toContain("#### ❌ ALM-002 on <code>postgres</code>: a crash never loses a due alarm")
    expect(markdown).toContain("the implementation had cleared the platform alarm and handled nothing.")
    expect(markdown).toContain(`npx durable-conformance replay ${REPLAY_TOKEN}`)
    const stepRows = markdown.split("\n").filter((line) => /^\| (\*\*)?\d+(\*\*)? \| \+/.test(line))
    expect(stepRows).toHaveLength(5)
    expect(stepRows[2]).toContain("⚡ crash at hook afterHandlerRun")
    expect(stepRows[2]).toContain("state differs: <code>platformAlarm</code>")
    expect(stepRows[4]).toMatch(/^\| \*\*4\*\* \| \+2h \|.*diverges here/)
  })

  it("lists errors, unknowns and not-applicable requirements with their reasons", () => {
    expect(markdown).toMatch(/### Errors\n\n- ERROR <code>CNT-001<\/code> on <code>postgres<\/code>: The adapter failed/)
    expect(markdown).toContain("- unknown <code>ALM-003</code> on <code>postgres</code>: reached by 0 of 100 scenarios")
    expect(markdown).toContain("(needs independentConnections, rowLocks)")
  })

  it("cannot be broken out of: markup in values is escaped", () => {
    expect(markdown).not.toContain("<script>")
    expect(markdown).toContain("&lt;script&gt;")
  })

  it("says pass when everything passes", () => {
    const report = makeReport()
    const passing = { ...report, adapters: [report.adapters[0]!], summary: { pass: 4, fail: 0, "not-applicable": 1, unknown: 0, error: 0 } }
    const text = renderMarkdown(passing)
    expect(text.split("\n")[0]).toBe("## ✅ durable-conformance run: all applicable requirements pass")
    expect(text).not.toContain("### Failures")
  })
})

describe("writeStepSummary", () => {
  it("appends to $GITHUB_STEP_SUMMARY when set and does nothing otherwise", () => {
    const dir = mkdtempSync(join(tmpdir(), "dc-summary-"))
    try {
      const file = join(dir, "summary.md")
      writeFileSync(file, "earlier step\n")
      expect(writeStepSummary("# one\n", { GITHUB_STEP_SUMMARY: file })).toBe(file)
      expect(writeStepSummary("# two", { GITHUB_STEP_SUMMARY: file })).toBe(file)
      expect(readFileSync(file, "utf8")).toBe("earlier step\n# one\n\n# two\n\n")
      expect(writeStepSummary("# three", {})).toBeUndefined()
      expect(writeStepSummary("# three", { GITHUB_STEP_SUMMARY: "" })).toBeUndefined()
      expect(readFileSync(file, "utf8")).not.toContain("three")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
