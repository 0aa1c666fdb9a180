/**
 * Reading StrykerJS's incremental file (a mutation-testing-report-schema report) for `npm run mutation`:
 * counts by status, the mutation score, the score over the non-equivalent mutants, and the survivors
 * as `file:line:column mutator replacement` lines.
 */
import { compareEntryKeys } from "../harness/CodeUnitOrder.ts"

/** One mutant of a mutation-testing-report-schema report (the fields read here). */
export interface ReportMutant {
  readonly id: string
  readonly mutatorName: string
  readonly replacement?: string
  readonly status: string
  readonly location: {
    readonly start: { readonly line: number; readonly column: number }
    readonly end: { readonly line: number; readonly column: number }
  }
}

/** A mutation-testing-report-schema report (the fields read and rewritten here). */
export interface MutationReport {
  readonly files: Readonly<Record<string, { readonly source: string; readonly mutants: ReadonlyArray<ReportMutant> } & Record<string, unknown>>>
  readonly [key: string]: unknown
}

/** Totals by status; `score` counts killed and timeout as detected, over every valid mutant. */
export interface MutationCounts {
  readonly total: number
  readonly killed: number
  readonly timeout: number
  readonly survived: number
  readonly noCoverage: number
  /** Compile and runtime errors and ignored mutants: not valid, not in the score. */
  readonly invalid: number
  /** Survivors listed in `mutation/equivalents.md`. */
  readonly equivalent: number
}

/** A replacement without whitespace and backticks, so it can be written in a Markdown code span. */
const normalizedReplacement = (replacement: string): string => replacement.replace(/[\s`]+/g, "")

/**
 * The key of a mutant in `mutation/equivalents.md`: `path:line:column-line:column Mutator replacement`
 * (start and end of the mutated code, and the replacement without whitespace and backticks: several
 * mutants can start at the same place, e.g. an `if` test and its left operand, or `true` and `false`).
 */
export const mutantKey = (file: string, mutant: ReportMutant): string => {
  const { start, end } = mutant.location
  return `${file}:${start.line}:${start.column}-${end.line}:${end.column} ${mutant.mutatorName} ${normalizedReplacement(mutant.replacement ?? "")}`
}

/**
 * The mutant keys `mutation/equivalents.md` lists: each line
 * `- \`path:line:column-line:column\` Mutator \`replacement\` — argument` (the replacement is the first
 * code span after the mutator, compared without whitespace and backticks; write an empty template
 * literal as "`` `` ``").
 *
 * @example equivalentKeys("- `a.ts:3:7-3:9` StringLiteral `\"\"` — never read") // Set { "a.ts:3:7-3:9 StringLiteral \"\"" }
 */
export const equivalentKeys = (markdown: string): ReadonlySet<string> => {
  const keys = new Set<string>()
  for (const line of markdown.split("\n")) {
    const match = /^[-*]\s+`([^`\s]+:\d+:\d+-\d+:\d+)`\s+(\w+)\s+(`+)(.*?)\3/.exec(line)
    if (match !== null) keys.add(`${match[1]} ${match[2]} ${normalizedReplacement(match[4]!)}`)
  }
  return keys
}

/** Counts the report's mutants by status. */
export const countMutants = (report: MutationReport, equivalents: ReadonlySet<string>): MutationCounts => {
  const counts = { total: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, invalid: 0, equivalent: 0 }
  for (const [file, entry] of Object.entries(report.files)) {
    for (const mutant of entry.mutants) {
      counts.total++
      if (mutant.status === "Killed") counts.killed++
      else if (mutant.status === "Timeout") counts.timeout++
      else if (mutant.status === "Survived" || mutant.status === "NoCoverage") {
        if (mutant.status === "Survived") counts.survived++
        else counts.noCoverage++
        if (equivalents.has(mutantKey(file, mutant))) counts.equivalent++
      } else counts.invalid++
    }
  }
  return counts
}

const percent = (part: number, whole: number): string => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(2)}%`)

/** Survivors (and no-coverage mutants), one line each, sorted by file and position; equivalents marked. */
export const survivorLines = (report: MutationReport, equivalents: ReadonlySet<string>): ReadonlyArray<string> =>
  Object.entries(report.files).sort(compareEntryKeys).flatMap(([file, entry]) =>
    entry.mutants
      .filter((mutant) => mutant.status === "Survived" || mutant.status === "NoCoverage")
      .sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column)
      .map((mutant) => {
        const replacement = (mutant.replacement ?? "").replace(/\s+/g, " ").slice(0, 100)
        const mark = equivalents.has(mutantKey(file, mutant)) ? " [equivalent]" : ""
        const { start, end } = mutant.location
        return `${file}:${start.line}:${start.column}-${end.line}:${end.column} ${mutant.mutatorName} \`${replacement}\`${mark}`
      }))

/** The end-of-run summary of one subject: totals, both scores, and the survivors. */
export const summarizeMutationReport = (subject: string, report: MutationReport, equivalents: ReadonlySet<string>): string => {
  const counts = countMutants(report, equivalents)
  const detected = counts.killed + counts.timeout
  const valid = detected + counts.survived + counts.noCoverage
  const survivors = survivorLines(report, equivalents)
  return [
    `mutation ${subject}: ${counts.total} mutants: ${counts.killed} killed, ${counts.timeout} timeout, ${counts.survived} survived, ` +
    `${counts.noCoverage} no coverage, ${counts.invalid} invalid`,
    `score ${percent(detected, valid)} (${detected}/${valid}); over non-equivalent mutants ${percent(detected, valid - counts.equivalent)} ` +
    `(${detected}/${valid - counts.equivalent}, ${counts.equivalent} equivalent in mutation/equivalents.md)`,
    ...(survivors.length === 0 ? [] : [`survivors (${survivors.length}):`, ...survivors.map((line) => `  ${line}`)])
  ].join("\n")
}
