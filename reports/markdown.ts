/**
 * The Markdown summary: verdict counts per adapter, each failing requirement with its one-sentence
 * explanation, the replay command and a compact step table of the counterexample. Sized for a CI step
 * summary (`$GITHUB_STEP_SUMMARY`, limited to 1 MiB), so long lists are cut with a note. Last, the
 * situation coverage table of each subject, collapsed.
 */
import { appendFileSync } from "node:fs"
import type { StepRecord } from "../harness/Property.ts"
import { SITUATION_FLAG_BELOW } from "../harness/Coverage.ts"
import type { AdapterResult, ConformanceReport, RequirementResult } from "../harness/RunResult.ts"
import { cellKind, coverageTables } from "./coverageTable.ts"
import { depthCell, INTERLEAVING_SCOPE, interleavingRows } from "./interleavingTable.ts"
import { diffStates } from "./diff.ts"
import { redactSecrets } from "./redact.ts"
import {
  compactJson,
  countVerdicts,
  explanationOf,
  failuresOf,
  formatOffsetMs,
  overallStatus,
  replayCommand,
  VERDICT_LABEL
} from "./text.ts"

/** Failures shown in full; the rest are listed by ID only. */
const MAX_DETAILED_FAILURES = 20
/** Steps shown per counterexample table. */
const MAX_STEPS_SHOWN = 60
/** Entries per list (errors, unknown, not applicable). */
const MAX_LIST_ENTRIES = 100
/** GitHub refuses step summaries over 1 MiB; stay well below it. */
const MAX_SUMMARY_BYTES = 900_000

/** Escapes text for Markdown prose: HTML specials and Markdown punctuation. */
const text = (value: string): string =>
  value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/([\\`*_[\]#|~])/g, "\\$1")
    .replace(/\r?\n/g, " ")

/** Inline code safe inside a table cell (pipes and backticks cannot break out). */
const code = (value: string): string =>
  `<code>${value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "&#124;").replace(/\r?\n/g, " ")}</code>`

const stepRow = (step: StepRecord, firstTimeMs: number, divergentIndex: number | undefined): string => {
  const diff = diffStates(step.modelState, step.implementationState, 50)
  const results = diffStates(step.model, step.implementation, 50)
  const differingPaths = (rows: typeof diff.rows): string => {
    const paths = rows.filter((row) => row.differs).map((row) => row.path)
    return `${paths.slice(0, 3).map(code).join(", ")}${paths.length > 3 ? ` (+${paths.length - 3})` : ""}`
  }
  const notes: Array<string> = []
  if (step.fault !== undefined) notes.push(`⚡ ${text(step.fault)}`)
  if (step.index === divergentIndex) notes.push("**⟵ diverges here**")
  if (results.differing > 0) notes.push(`result differs: ${differingPaths(results.rows)}`)
  if (diff.differing > 0) notes.push(`state differs: ${differingPaths(diff.rows)}`)
  const index = step.index === divergentIndex ? `**${step.index}**` : String(step.index)
  return `| ${index} | ${formatOffsetMs(step.virtualTimeMs - firstTimeMs)} | ${code(`${step.operation} ${compactJson(step.args, 160)}`)} | ${code(
    compactJson(step.implementation, 120)
  )} | ${code(compactJson(step.model, 120))} | ${notes.join("; ")} |`
}

const failureSection = (adapterName: string, requirement: RequirementResult): Array<string> => {
  const lines: Array<string> = [`#### ❌ ${text(requirement.requirementId)} on ${code(adapterName)}: ${text(requirement.title)}`, "", text(explanationOf(requirement)), ""]
  const counterexample = requirement.counterexample
  if (counterexample === undefined) {
    lines.push("_No counterexample was recorded (the requirement failed without a divergence, e.g. it was never reached)._", "")
    return lines
  }
  lines.push("Replay it:", "", "```sh", replayCommand(counterexample.replayToken), "```", "")
  const steps = counterexample.trace.steps
  const firstTimeMs = steps[0]?.virtualTimeMs ?? 0
  lines.push(
    `<details><summary>Counterexample: ${steps.length} step${steps.length === 1 ? "" : "s"} (property ${code(counterexample.propertyId)}, found after ${counterexample.runsToDetect} run${counterexample.runsToDetect === 1 ? "" : "s"}, ${counterexample.shrinkSteps} shrink steps)</summary>`,
    "",
    "| # | virtual time | operation | implementation | model | notes |",
    "|---:|---|---|---|---|---|"
  )
  for (const step of steps.slice(0, MAX_STEPS_SHOWN)) lines.push(stepRow(step, firstTimeMs, counterexample.divergence.stepIndex))
  if (steps.length > MAX_STEPS_SHOWN) lines.push(`| … | | ${steps.length - MAX_STEPS_SHOWN} more steps in the HTML report | | | |`)
  lines.push("", "</details>", "")
  return lines
}

const listSection = (title: string, entries: ReadonlyArray<string>): Array<string> => {
  if (entries.length === 0) return []
  const shown = entries.slice(0, MAX_LIST_ENTRIES)
  const more = entries.length > shown.length ? [`- … and ${entries.length - shown.length} more (see the HTML or JSON report)`] : []
  return [`### ${title}`, "", ...shown, ...more, ""]
}

/**
 * Renders the Markdown summary of a report (secrets redacted).
 *
 * @example
 * fs.writeFileSync("summary.md", renderMarkdown(report))
 */
export const renderMarkdown = (input: ConformanceReport): string => {
  const report = redactSecrets(input)
  const status = overallStatus(report.summary)
  const icon = status === "pass" ? "✅" : status === "fail" ? "❌" : "⚠️"
  const headline =
    status === "pass"
      ? "all applicable requirements pass"
      : [
          report.summary.fail > 0 ? `${report.summary.fail} failing` : "",
          report.summary.error > 0 ? `${report.summary.error} error${report.summary.error === 1 ? "" : "s"}` : "",
          report.summary.unknown > 0 ? `${report.summary.unknown} unknown` : ""
        ]
          .filter((part) => part !== "")
          .join(", ")
  const lines: Array<string> = [
    `## ${icon} durable-conformance ${report.kind}: ${headline}`,
    "",
    `Suite **${text(report.suite.name)} ${text(report.suite.version)}** (hash ${code(report.suite.hash.slice(0, 16))}) · harness ${text(
      report.harnessVersion
    )} · seed ${code(String(report.options.seed))} · ${report.options.runs} runs per property · subjects ${text(report.options.subjects.join(", "))}`,
    "",
    "| adapter | engine | pass | fail | n/a | unknown | error |",
    "|---|---|---:|---:|---:|---:|---:|"
  ]
  for (const adapter of report.adapters) {
    const counts = countVerdicts(adapter.requirements)
    const fp = adapter.fingerprint
    lines.push(
      `| ${code(fp.name)} | ${text(`${fp.engine} ${fp.engineVersion}`)} | ${counts.pass} | ${counts.fail > 0 ? `**${counts.fail}**` : "0"} | ${counts["not-applicable"]} | ${counts.unknown} | ${counts.error > 0 ? `**${counts.error}**` : "0"} |`
    )
  }
  const s = report.summary
  lines.push(`| **total** | | ${s.pass} | ${s.fail} | ${s["not-applicable"]} | ${s.unknown} | ${s.error} |`, "")

  const failures = failuresOf(report.adapters)
  if (failures.length > 0) {
    lines.push("### Failures", "")
    for (const { adapter, requirement } of failures.slice(0, MAX_DETAILED_FAILURES)) lines.push(...failureSection(adapter.fingerprint.name, requirement))
    if (failures.length > MAX_DETAILED_FAILURES) {
      const rest = failures.slice(MAX_DETAILED_FAILURES).map(({ adapter, requirement }) => `${requirement.requirementId}@${adapter.fingerprint.name}`)
      lines.push(`…and ${rest.length} more failures: ${text(rest.join(", "))}`, "")
    }
  }
  const entries = (verdict: RequirementResult["verdict"], describe: (r: RequirementResult) => string): Array<string> =>
    report.adapters.flatMap((adapter) =>
      adapter.requirements
        .filter((r) => r.verdict === verdict)
        .map((r) => `- ${VERDICT_LABEL[verdict]} ${code(r.requirementId)} on ${code(adapter.fingerprint.name)}: ${text(describe(r))}`)
    )
  lines.push(...listSection("Errors", entries("error", (r) => r.reason)))
  lines.push(...listSection("Unknown (budget exhausted)", entries("unknown", (r) => r.reason)))
  lines.push(
    ...listSection(
      "Not applicable",
      entries("not-applicable", (r) =>
        r.missingCapabilities !== undefined && r.missingCapabilities.length > 0 ? `${r.title} (needs ${r.missingCapabilities.join(", ")})` : r.reason
      )
    )
  )
  lines.push(...coverageSection(report.adapters))
  lines.push(...interleavingSection(report.adapters))
  const out = `${lines.join("\n").trimEnd()}\n`
  if (Buffer.byteLength(out, "utf8") <= MAX_SUMMARY_BYTES) return out
  return `${out.slice(0, MAX_SUMMARY_BYTES / 4)}\n\n_Summary cut to fit the step summary limit; see the HTML report for everything._\n`
}

/** The situation coverage tables, one collapsed table per subject; rare counts in bold, unreached marked. */
const coverageSection = (adapters: ReadonlyArray<AdapterResult>): Array<string> => {
  const tables = coverageTables(adapters)
  if (tables.length === 0) return []
  const lines = ["### Situation coverage", "", `Scenarios that reached each situation of the model, per adapter (fewer than ${SITUATION_FLAG_BELOW} in **bold**, never reached marked ❗).`, ""]
  for (const table of tables) {
    const flags = [table.rareCells > 0 ? `${table.rareCells} rare` : "", table.unreachedCells > 0 ? `${table.unreachedCells} never reached` : ""].filter((part) => part !== "")
    lines.push(`<details><summary>${text(table.subject)}: ${table.rows.length} situations${flags.length === 0 ? ", every one reached at least " + SITUATION_FLAG_BELOW + " times" : `, ${flags.join(", ")}`}</summary>`, "")
    lines.push(`| situation | ${adapters.map((adapter) => code(adapter.fingerprint.name)).join(" | ")} |`, `|---|${adapters.map(() => "---:").join("|")}|`)
    for (const row of table.rows) {
      const cells = row.scenariosByAdapter.map((scenarios) => {
        const kind = cellKind(scenarios)
        return kind === "na" ? "n/a" : kind === "unreached" ? "0 ❗" : kind === "rare" ? `**${scenarios}**` : String(scenarios)
      })
      lines.push(`| ${code(row.situation)} | ${cells.join(" | ")} |`)
    }
    lines.push("", "</details>", "")
  }
  return lines
}

/** The PCT guarantee of each step-scheduled property run: n, k, and per depth the bound and the miss probability. */
const interleavingSection = (adapters: ReadonlyArray<AdapterResult>): Array<string> => {
  const rows = interleavingRows(adapters)
  if (rows.length === 0) return []
  const depths = Math.max(...rows.map((row) => row.guarantee.maxDepth))
  const lines = ["### Interleaving guarantee", "", text(INTERLEAVING_SCOPE), ""]
  lines.push(`| property | adapter | n | k | ${Array.from({ length: depths }, (_, index) => `d=${index + 1}`).join(" | ")} |`, `|---|---|---:|---:|${Array.from({ length: depths }, () => "---").join("|")}|`)
  for (const row of rows) {
    const cells = Array.from({ length: depths }, (_, index) => {
      const bound = row.guarantee.bounds[index]
      return bound === undefined ? "" : text(depthCell(row.guarantee, bound))
    })
    lines.push(`| ${code(row.propertyId)} | ${code(row.adapter)} | ${row.guarantee.operations} | ${row.guarantee.steps} | ${cells.join(" | ")} |`)
  }
  lines.push("")
  return lines
}

/**
 * Appends the Markdown to the GitHub Actions step summary when `GITHUB_STEP_SUMMARY` is set.
 * Returns the file written, or `undefined` when not running under GitHub Actions.
 */
export const writeStepSummary = (markdown: string, environment: Readonly<Record<string, string | undefined>> = process.env): string | undefined => {
  const path = environment["GITHUB_STEP_SUMMARY"]
  if (path === undefined || path === "") return undefined
  appendFileSync(path, markdown.endsWith("\n") ? `${markdown}\n` : `${markdown}\n\n`, "utf8")
  return path
}
