/**
 * The terminal summary of a report: one line per adapter with verdict counts, then each failed
 * requirement with its one-sentence reason and the replay command, errors, and the unknowns one line
 * per property (`summaryFindings.ts`).
 */
import { coverageLine, flaggedSituations, unreachedSituations } from "../harness/Coverage.ts"
import type { ConformanceReport } from "../harness/RunResult.ts"
import { interleavingSummaryLines } from "../reports/interleavingTable.ts"
import { budgetText, findingLines } from "./summaryFindings.ts"

/** Renders the plain-text summary printed at the end of `run` and `certify`. */
export const renderSummary = (report: ConformanceReport, options: { readonly reportPaths?: ReadonlyArray<string>; readonly seeds?: ReadonlyArray<number> } = {}): string => {
  const lines: Array<string> = []
  for (const adapter of report.adapters) {
    const counts = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
    for (const requirement of adapter.requirements) counts[requirement.verdict]++
    lines.push(
      `${adapter.fingerprint.name.padEnd(10)} ${String(counts.pass).padStart(3)} pass  ${String(counts.fail).padStart(3)} fail  ` +
        `${String(counts["not-applicable"]).padStart(3)} n/a  ${String(counts.unknown).padStart(3)} unknown  ${String(counts.error).padStart(3)} error` +
        `   (${adapter.fingerprint.engine} ${adapter.fingerprint.engineVersion})`
    )
  }
  lines.push(...findingLines(report))
  lines.push(...coverageFlagLines(report))
  lines.push(...interleavingSummaryLines(report.adapters))
  const { summary } = report
  lines.push("", `${summary.pass} pass, ${summary.fail} fail, ${summary["not-applicable"]} not-applicable, ${summary.unknown} unknown, ${summary.error} error (${budgetText(report, options.seeds)})`)
  for (const path of options.reportPaths ?? []) lines.push(`report: ${path}`)
  return `${lines.join("\n")}\n`
}

/**
 * One line per adapter and subject whose situation coverage has rare or unreached situations
 * (`COVERAGE alarms on sqlite: 60 of 61 situations reached, ...`); nothing when every one was reached
 * often enough. The full table is in report.md and report.html.
 */
const coverageFlagLines = (report: ConformanceReport): ReadonlyArray<string> =>
  report.adapters.flatMap((adapter) =>
    (adapter.coverage ?? [])
      .filter((coverage) => flaggedSituations(coverage).length > 0 || unreachedSituations(coverage).length > 0)
      .map((coverage) => `COVERAGE ${coverageLine(coverage).replace(`${coverage.subject}:`, `${coverage.subject} on ${adapter.fingerprint.name}:`)}`)
  )

/** Exit code of a report: 0 when every requirement passed or does not apply, 2 on adapter errors, else 1. */
export const exitCodeOf = (report: ConformanceReport): 0 | 1 | 2 => {
  if (report.summary.error > 0) return 2
  if (report.summary.fail > 0 || report.summary.unknown > 0) return 1
  return 0
}
