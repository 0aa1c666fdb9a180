import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { readReport } from "../../reports/json.ts"
import { writeReportFiles } from "../../reports/write.ts"
import { makeReport } from "./fixtures.ts"
import { parseXml } from "./xml.ts"

describe("writeReportFiles", () => {
  it("writes all four formats, appends the step summary, and redacts environment secrets by value", () => {
    const dir = mkdtempSync(join(tmpdir(), "dc-write-"))
    try {
      const report = makeReport()
      // A driver quoting the bare password: no pattern can recognise it, the environment can.
      const leaky = {
        ...report,
        adapters: [{ ...report.adapters[0]!, requirements: [{ ...report.adapters[0]!.requirements[0]!, reason: "auth failed with Zq9-unusual-pw" }] }]
      }
      const summary = join(dir, "step-summary.md")
      const files = writeReportFiles(leaky, join(dir, "out"), {
        environment: { DATABASE_URL: "postgres://app:Zq9-unusual-pw@db/x", GITHUB_STEP_SUMMARY: summary }
      })
      expect(files.stepSummary).toBe(summary)
      for (const path of [files.json, files.markdown, files.html, files.junit, summary]) {
        const text = readFileSync(path, "utf8")
        expect(text.length, path).toBeGreaterThan(100)
        expect(text, path).not.toContain("Zq9-unusual-pw")
      }
      expect(readReport(readFileSync(files.json, "utf8")).adapters[0]?.requirements[0]?.reason).toBe("auth failed with ***")
      expect(parseXml(readFileSync(files.junit, "utf8")).name).toBe("testsuites")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
