/**
 * Moves `mutation/equivalents.md` entries to where their mutants are now, after the code moved.
 *
 * An entry is keyed by the mutant's location, so an edit above it (a line added, a column shifted)
 * makes it match nothing, and the survivor it argued for counts as non-equivalent again. This finds,
 * for each entry that matches no mutant of the current report, the one mutant of the same file with
 * the same mutator and replacement whose mutated code and whole first line read exactly as the entry's
 * did in the earlier report (its `source`); only then is the entry moved. Everything else is left for
 * a person: the argument may depend on code that changed.
 */
import { equivalentKeys, type MutationReport, mutantKey, type ReportMutant } from "./mutationReport.ts"

/** One entry moved: its old key, its new key. */
export interface Rekeyed {
  readonly from: string
  readonly to: string
}

/** The text of `location` in `source` (1-based lines and columns, end exclusive), and its first line whole. */
const textAt = (source: string, location: ReportMutant["location"]): { readonly code: string; readonly line: string } | undefined => {
  const lines = source.split("\n")
  const first = lines[location.start.line - 1]
  const last = lines[location.end.line - 1]
  if (first === undefined || last === undefined) return undefined
  const spanned = lines.slice(location.start.line - 1, location.end.line)
  spanned[spanned.length - 1] = last.slice(0, location.end.column - 1)
  spanned[0] = spanned[0]!.slice(location.start.column - 1)
  return { code: spanned.join("\n"), line: first }
}

const mutantsByKey = (report: MutationReport): ReadonlyMap<string, { readonly file: string; readonly mutant: ReportMutant }> =>
  new Map(Object.entries(report.files).flatMap(([file, entry]) => entry.mutants.map((mutant) => [mutantKey(file, mutant), { file, mutant }] as const)))

/**
 * The entries of `equivalents` (keys) that match no mutant of `current` but match exactly one mutant
 * of `current` by mutator, replacement, mutated code and first line as they read in `earlier`.
 */
export const rekeyEquivalents = (equivalents: ReadonlySet<string>, earlier: MutationReport, current: MutationReport): ReadonlyArray<Rekeyed> => {
  const now = mutantsByKey(current)
  const before = mutantsByKey(earlier)
  const moved: Array<Rekeyed> = []
  for (const key of equivalents) {
    if (now.has(key)) continue
    const old = before.get(key)
    const oldSource = old === undefined ? undefined : (earlier.files[old.file] as { readonly source?: string } | undefined)?.source
    const newSource = old === undefined ? undefined : (current.files[old.file] as { readonly source?: string } | undefined)?.source
    if (old === undefined || oldSource === undefined || newSource === undefined) continue
    const wanted = textAt(oldSource, old.mutant.location)
    if (wanted === undefined) continue
    const candidates = (current.files[old.file]?.mutants ?? []).filter((mutant) => {
      if (mutant.mutatorName !== old.mutant.mutatorName || (mutant.replacement ?? "") !== (old.mutant.replacement ?? "")) return false
      const found = textAt(newSource, mutant.location)
      return found !== undefined && found.code === wanted.code && found.line === wanted.line
    })
    if (candidates.length === 1) moved.push({ from: key, to: mutantKey(old.file, candidates[0]!) })
  }
  return moved
}

/** `markdown` with each moved entry's location rewritten (the argument and replacement kept), line by line. */
export const applyRekeys = (markdown: string, moved: ReadonlyArray<Rekeyed>): string => {
  const to = new Map(moved.map((entry) => [entry.from, entry.to.slice(0, entry.to.indexOf(" "))]))
  return markdown.split("\n").map((line) => {
    const [key] = [...equivalentKeys(line)]
    const location = key === undefined ? undefined : to.get(key)
    if (key === undefined || location === undefined) return line
    return line.replace(`\`${key.slice(0, key.indexOf(" "))}\``, `\`${location}\``)
  }).join("\n")
}
