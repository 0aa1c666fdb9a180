/**
 * The outputs of a run: checked before anything runs (`checkOutputs`), then written (`writeReports`:
 * report.json, report.md, report.html, junit.xml, secrets redacted, and the Markdown appended to
 * `$GITHUB_STEP_SUMMARY` when set). A file that still cannot be written after the run never costs the
 * summary: `publishReport` prints it anyway and names the file.
 */
import { closeSync, existsSync, mkdirSync, openSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import type { ConformanceReport } from "../harness/RunResult.ts"
import { renderHtml } from "../reports/html.ts"
import { renderJson } from "../reports/json.ts"
import { renderJunit } from "../reports/junit.ts"
import { renderMarkdown, writeStepSummary } from "../reports/markdown.ts"
import { redactSecrets, redactString, secretsFromEnvironment } from "../reports/redact.ts"
import { computeSuiteHash } from "../reports/suiteHash.ts"
import type { CliIo } from "./io.ts"
import { UsageError } from "./options.ts"
import { exitCodeOf } from "./summary.ts"

/** The package root (where spec/, models/ and properties/ live). */
export const packageRoot = (): string => resolve(dirname(fileURLToPath(import.meta.url)), "..")

let cachedSuiteHash: string | undefined

/** Content hash of this suite's requirements, models and properties (computed once per process). */
export const currentSuiteHash = (): string => {
  const hash = cachedSuiteHash ?? computeSuiteHash(packageRoot())
  cachedSuiteHash = hash
  return hash
}

/** The report files `run` writes into its folder. */
export const REPORT_FILES: ReadonlyArray<string> = ["report.json", "report.md", "report.html", "junit.xml"]

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The first problem writing `file` (a path that exists) would meet, if any. */
const existingFileProblem = (path: string): string | undefined => {
  if (statSync(path).isDirectory()) return "it is a folder"
  try {
    closeSync(openSync(path, "r+"))
    return undefined
  } catch (error) {
    return reasonOf(error)
  }
}

/** The first problem writing into `folder` would meet (created when missing), if any. */
const folderProblem = (folder: string, shown: string): string | undefined => {
  if (existsSync(folder) && !statSync(folder).isDirectory()) return `${shown} is a file, not a folder`
  try {
    mkdirSync(folder, { recursive: true })
    const probe = join(folder, `.durable-conformance-probe-${process.pid}`)
    writeFileSync(probe, "")
    unlinkSync(probe)
    return undefined
  } catch (error) {
    return `cannot write into ${shown}: ${reasonOf(error)}`
  }
}

/** The problem appending to `$GITHUB_STEP_SUMMARY` would meet, when it is set. */
const stepSummaryProblem = (env: CliIo["env"]): string | undefined => {
  const path = env["GITHUB_STEP_SUMMARY"]
  if (path === undefined || path === "") return undefined
  try {
    if (existsSync(path) && statSync(path).isDirectory()) return `GITHUB_STEP_SUMMARY (${path}) is a folder`
    closeSync(openSync(path, "a"))
    return undefined
  } catch (error) {
    return `cannot append to GITHUB_STEP_SUMMARY (${path}): ${reasonOf(error)}`
  }
}

/**
 * Checks, before anything runs, that every output can be written: the `--out` folder (created when
 * missing; a file there, or a folder that refuses a probe file, is a problem), each report file in it
 * that already exists, and `$GITHUB_STEP_SUMMARY` when set. Fails with one `UsageError` line.
 */
export const checkOutputs = (outDir: string, io: CliIo, files: ReadonlyArray<string> = REPORT_FILES): Effect.Effect<void, UsageError> =>
  Effect.suspend(() => {
    const folder = resolve(io.cwd, outDir)
    const hint = "pass a writable folder with --out DIR (it is created when missing)"
    const inFolder = folderProblem(folder, `--out ${outDir}`)
    if (inFolder !== undefined) return Effect.fail(new UsageError({ message: inFolder, hint }))
    for (const file of files) {
      const path = join(folder, file)
      const problem = existsSync(path) ? existingFileProblem(path) : undefined
      if (problem !== undefined) return Effect.fail(new UsageError({ message: `cannot overwrite ${path}: ${problem}`, hint }))
    }
    const summary = stepSummaryProblem(io.env)
    if (summary !== undefined) return Effect.fail(new UsageError({ message: summary, hint: "point GITHUB_STEP_SUMMARY at a writable file, or unset it" }))
    return Effect.void
  })

/** A file that could not be written after the run, and why. */
export interface WriteFailure {
  readonly path: string
  readonly reason: string
}

/** What writing the outputs did: the files written and those that failed. */
export interface WrittenReports {
  readonly paths: ReadonlyArray<string>
  readonly failures: ReadonlyArray<WriteFailure>
}

/** Writes each `[name, content]` into `folder`, going on after a failure; never throws. */
export const writeFiles = (folder: string, files: ReadonlyArray<readonly [string, string]>): WrittenReports => {
  const paths: Array<string> = []
  const failures: Array<WriteFailure> = []
  for (const [name, content] of files) {
    const path = join(folder, name)
    try {
      mkdirSync(folder, { recursive: true })
      writeFileSync(path, content)
      paths.push(path)
    } catch (error) {
      failures.push({ path, reason: reasonOf(error) })
    }
  }
  return { paths, failures }
}

/**
 * Writes all formats (and `extraFiles`, e.g. a certificate) into `outDir`, secrets redacted, and
 * appends the Markdown to `$GITHUB_STEP_SUMMARY` when set. Never throws: a file that cannot be written
 * is listed in `failures` and the others are still written.
 */
export const writeReports = (
  report: ConformanceReport,
  outDir: string,
  io: CliIo,
  extraFiles: ReadonlyArray<readonly [string, string]> = []
): WrittenReports => {
  const json = renderJson(redactSecrets(report, secretsFromEnvironment(io.env)))
  // Every format renders exactly what report.json holds (free-form keys sorted as there), so a report
  // merged from shard report files (`merge-reports`) renders byte for byte like the unsharded run's.
  const safe = JSON.parse(json) as ConformanceReport
  const markdown = renderMarkdown(safe)
  const written = writeFiles(resolve(io.cwd, outDir), [
    ["report.json", json],
    ["report.md", markdown],
    ["report.html", renderHtml(safe)],
    ["junit.xml", renderJunit(safe)],
    ...extraFiles
  ])
  try {
    writeStepSummary(markdown, io.env)
    return written
  } catch (error) {
    return { ...written, failures: [...written.failures, { path: `GITHUB_STEP_SUMMARY (${io.env["GITHUB_STEP_SUMMARY"]})`, reason: reasonOf(error) }] }
  }
}

/** How `publishReport` ends a command. */
export interface PublishOptions {
  readonly outDir: string
  readonly quiet: boolean
  /** More files for the report folder (a certificate). */
  readonly extraFiles?: ReadonlyArray<readonly [string, string]>
  /** Adapters that could not be made or closed: one line each on stderr. */
  readonly adapterErrors?: ReadonlyArray<{ readonly message: string; readonly hint: string }>
  /** Rendered summary for the written paths (`renderSummary` with the caller's options). */
  readonly summary: (paths: ReadonlyArray<string>) => string
}

/**
 * Writes the reports, then prints the summary whatever happened, then one line on stderr per adapter
 * error and per file that could not be written (naming it). Returns the exit code: the report's,
 * or 2 when a file could not be written.
 */
export const publishReport = (report: ConformanceReport, io: CliIo, options: PublishOptions): 0 | 1 | 2 => {
  const written = writeReports(report, options.outDir, io, options.extraFiles)
  io.stdout(options.summary(options.quiet ? [] : written.paths))
  const secrets = secretsFromEnvironment(io.env)
  for (const error of options.adapterErrors ?? []) io.stderr(redactString(`durable-conformance: ${error.message} — ${error.hint}
`, secrets))
  for (const failure of written.failures) {
    io.stderr(`durable-conformance: could not write ${failure.path}: ${failure.reason} — the summary above is this run's result; pass a writable --out and rerun
`)
  }
  return written.failures.length > 0 ? 2 : exitCodeOf(report)
}
