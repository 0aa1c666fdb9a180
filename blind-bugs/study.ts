/**
 * The pure parts of the blind-bug study (`scripts/blind-bugs.ts`): checking a bug set against the
 * implementation it patches, applying one bug to a file's text, and reading a gate report into one
 * outcome per bug. No process, no file system: the script does those.
 */
import type { BlindBug, BlindBugSet } from "./BlindBug.ts"

/**
 * The file name of a bug set in `blind-bugs/`: its subject, and for every set after a subject's first a
 * round number (`clocks.ts`, then `clocks-2.ts` by another author).
 */
export const SET_FILE = /^(alarms|content|clocks|cron|pool)(?:-(\d+))?\.ts$/

/** The subject of a bug set's file name, or undefined when the name is not a set's (`SET_FILE`). */
export const subjectOfSetFile = (name: string): string | undefined => SET_FILE.exec(name)?.[1]

/** A bug set that cannot be applied as written (the implementation changed, or the set is malformed). */
export class BlindBugSetError extends Error {
  readonly _tag = "BlindBugSetError"
}

/** Occurrences of `needle` in `text` (non-overlapping, bounded by the text's length). */
export const occurrences = (text: string, needle: string): number => {
  if (needle.length === 0) return 0
  let count = 0
  for (let at = text.indexOf(needle); at !== -1 && count <= text.length; at = text.indexOf(needle, at + needle.length)) count++
  return count
}

/**
 * Every problem of `set`, as sentences that say what to fix: ids unique and kebab-case, each file
 * inside the implementation folder and readable (`readText` returns `undefined` for a missing file),
 * each `find` present exactly once and different from its `replace`, each bug citing a rule.
 */
export const problemsOf = (set: BlindBugSet, readText: (file: string) => string | undefined): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const seen = new Set<string>()
  for (const bug of set.bugs) {
    const where = `${set.subject}/${bug.id}`
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(bug.id)) problems.push(`${where}: the id is not kebab-case`)
    if (seen.has(bug.id)) problems.push(`${where}: the id is used twice`)
    seen.add(bug.id)
    if (!bug.file.startsWith(`${set.implementation}/`)) problems.push(`${where}: ${bug.file} is not inside ${set.implementation}`)
    if (bug.rules.length === 0) problems.push(`${where}: no reference rule cited`)
    if (bug.find === bug.replace) problems.push(`${where}: find and replace are the same text`)
    const text = readText(bug.file)
    if (text === undefined) {
      problems.push(`${where}: ${bug.file} does not exist`)
      continue
    }
    const found = occurrences(text, bug.find)
    if (found !== 1) problems.push(`${where}: its find text occurs ${found} times in ${bug.file} (must be exactly once: the implementation changed, or lengthen the text)`)
  }
  return problems
}

/** `text` with the bug applied; throws `BlindBugSetError` unless `find` occurs exactly once. */
export const applyBug = (text: string, bug: BlindBug): string => {
  const found = occurrences(text, bug.find)
  if (found !== 1) throw new BlindBugSetError(`${bug.id}: find text occurs ${found} times in ${bug.file}`)
  const at = text.indexOf(bug.find)
  return text.slice(0, at) + bug.replace + text.slice(at + bug.find.length)
}

/** The parts of a gate report (`report.json`) the study reads. */
export interface GateReport {
  readonly adapters: ReadonlyArray<{
    readonly requirements: ReadonlyArray<{
      readonly requirementId: string
      readonly verdict: string
      readonly reason?: string
      readonly counterexample?: { readonly runsToDetect: number; readonly trace: { readonly steps: ReadonlyArray<unknown> }; readonly propertyId: string }
    }>
  }>
}

/** What the gate said about one bug. */
export interface BugOutcome {
  /** `caught`: some requirement failed; `not-shown`: none failed but some was not shown to hold; `missed`: all passed; `broke`: no report. */
  readonly outcome: "caught" | "not-shown" | "missed" | "broke"
  /** Failed requirements, each with where its counterexample was found. */
  readonly failed: ReadonlyArray<{ readonly requirementId: string; readonly runsToDetect?: number; readonly steps?: number; readonly propertyId?: string }>
  /** Requirements that were `unknown` or `error`. */
  readonly unshown: ReadonlyArray<string>
  /** Whether some failed requirement cites one of the rules the bug's author named. */
  readonly namedRuleHit: boolean
}

/** The outcome of one bug from its gate report (`undefined`: the run wrote none) and the catalog's rules per requirement. */
export const outcomeOf = (bug: BlindBug, report: GateReport | undefined, rulesOf: (requirementId: string) => ReadonlyArray<string>): BugOutcome => {
  if (report === undefined) return { outcome: "broke", failed: [], unshown: [], namedRuleHit: false }
  const requirements = report.adapters.flatMap((adapter) => adapter.requirements)
  const failed = requirements.filter((requirement) => requirement.verdict === "fail").map((requirement) => ({
    requirementId: requirement.requirementId,
    ...(requirement.counterexample === undefined
      ? {}
      : { runsToDetect: requirement.counterexample.runsToDetect, steps: requirement.counterexample.trace.steps.length, propertyId: requirement.counterexample.propertyId })
  }))
  const unshown = requirements.filter((requirement) => requirement.verdict === "unknown" || requirement.verdict === "error").map((requirement) => requirement.requirementId)
  const named = new Set(bug.rules)
  const namedRuleHit = failed.some((requirement) => rulesOf(requirement.requirementId).some((rule) => named.has(rule)))
  const outcome = failed.length > 0 ? "caught" : unshown.length > 0 ? "not-shown" : "missed"
  return { outcome, failed, unshown, namedRuleHit }
}
