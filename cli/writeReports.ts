/**
 * Writes a report in every format into one folder (report.json, report.md, report.html, junit.xml),
 * secrets redacted, and appends the Markdown to `$GITHUB_STEP_SUMMARY` when set.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import type { ConformanceReport } from "../harness/RunResult.ts"
import { renderHtml } from "../reports/html.ts"
import { renderJson } from "../reports/json.ts"
import { renderJunit } from "../reports/junit.ts"
import { renderMarkdown, writeStepSummary } from "../reports/markdown.ts"
import { redactSecrets, secretsFromEnvironment } from "../reports/redact.ts"
import { computeSuiteHash } from "../reports/suiteHash.ts"
import type { CliIo } from "./io.ts"

/** The package root (where spec/, models/ and properties/ live). */
export const packageRoot = (): string => resolve(dirname(fileURLToPath(import.meta.url)), "..")

let cachedSuiteHash: string | undefined

/** Content hash of this suite's requirements, models and properties (computed once per process). */
export const currentSuiteHash = (): string => {
  const hash = cachedSuiteHash ?? computeSuiteHash(packageRoot())
  cachedSuiteHash = hash
  return hash
}

/** Writes all formats into `outDir`; returns the written paths. */
export const writeReports = (report: ConformanceReport, outDir: string, io: CliIo): ReadonlyArray<string> => {
  const folder = resolve(io.cwd, outDir)
  mkdirSync(folder, { recursive: true })
  const safe = redactSecrets(report, secretsFromEnvironment(io.env))
  const markdown = renderMarkdown(safe)
  const files: ReadonlyArray<readonly [string, string]> = [
    ["report.json", renderJson(safe)],
    ["report.md", markdown],
    ["report.html", renderHtml(safe)],
    ["junit.xml", renderJunit(safe)]
  ]
  const paths: Array<string> = []
  for (const [name, content] of files) {
    const path = join(folder, name)
    writeFileSync(path, content)
    paths.push(path)
  }
  writeStepSummary(markdown, io.env)
  return paths
}
