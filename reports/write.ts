/**
 * Writes every report format of one run into a folder: `report.json`, `summary.md`, `report.html`,
 * `junit.xml`, and appends the Markdown to `$GITHUB_STEP_SUMMARY` when set. This is what the CLI's
 * `run` and `certify` call; each writer can also be used on its own.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ConformanceReport } from "../harness/RunResult.ts"
import { renderHtml } from "./html.ts"
import { renderJson } from "./json.ts"
import { renderJunit } from "./junit.ts"
import { renderMarkdown, writeStepSummary } from "./markdown.ts"
import { redactSecrets, secretsFromEnvironment } from "./redact.ts"

/** Where the files went. */
export interface WrittenReports {
  readonly json: string
  readonly markdown: string
  readonly html: string
  readonly junit: string
  /** The step summary file appended to, when running under GitHub Actions. */
  readonly stepSummary?: string
}

/** Options of `writeReportFiles`. */
export interface WriteReportOptions {
  /** Environment to read `GITHUB_STEP_SUMMARY` and literal secrets (`DATABASE_URL`'s password) from. */
  readonly environment?: Readonly<Record<string, string | undefined>>
  /** Further literal secrets to redact. */
  readonly extraSecrets?: ReadonlyArray<string>
}

/**
 * Renders all formats into `directory` (created if missing). Secrets are redacted by pattern in every
 * writer, and here also by value: passwords found in the environment are replaced wherever they appear.
 *
 * @example
 * const files = writeReportFiles(report, "reports-out")
 */
export const writeReportFiles = (report: ConformanceReport, directory: string, options: WriteReportOptions = {}): WrittenReports => {
  const environment = options.environment ?? process.env
  const safe = redactSecrets(report, [...secretsFromEnvironment(environment), ...(options.extraSecrets ?? [])])
  mkdirSync(directory, { recursive: true })
  const paths = {
    json: join(directory, "report.json"),
    markdown: join(directory, "summary.md"),
    html: join(directory, "report.html"),
    junit: join(directory, "junit.xml")
  }
  const markdown = renderMarkdown(safe)
  writeFileSync(paths.json, renderJson(safe))
  writeFileSync(paths.markdown, markdown)
  writeFileSync(paths.html, renderHtml(safe))
  writeFileSync(paths.junit, renderJunit(safe))
  const stepSummary = writeStepSummary(markdown, environment)
  return stepSummary === undefined ? paths : { ...paths, stepSummary }
}
