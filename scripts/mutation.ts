/**
 * `npm run mutation [-- --subject alarms,cron] [--mutate subjects/alarms/pieces.ts] [--force]`: StrykerJS
 * (9.6.1, `stryker.config.mjs`) over the shipped implementations in `subjects/`, one subject after the
 * other, each in incremental mode (`mutation/<subject>.incremental.json`, checked in), then the score and
 * the surviving mutants (file:line:column, mutator, replacement).
 *
 * - Default subjects: every subject already measured (an incremental file in `mutation/`), alarms at least.
 * - `--mutate <glob>` is passed to Stryker: only those files are mutated this time; the incremental
 *   file keeps the earlier results of the other files.
 * - Stryker's command runner knows no per-test coverage, so its incremental mode cannot see the test
 *   side change. This script records a hash of the test side (harness, models, properties, spec,
 *   adapters, the test script) in `mutation/<subject>.test-side.json`; when it changed, a whole-subject
 *   run (no `--mutate`) forgets the survivors of the incremental file so Stryker tests them again
 *   (killed mutants are kept: the suite only grows). `--force` reruns every mutant.
 * - Survivors listed in `mutation/equivalents.md` are counted apart: the second score is over the
 *   non-equivalent mutants (the issue's goal: at least 95%).
 * - `MUTATION_ADAPTER` picks the adapter (default sqlite; pool: postgres). The gate runs every adapter,
 *   so kills a non-default run makes are recorded (`mutation/<subject>.adapter-kills.json`) and survive
 *   a later rerun on the default one (`mutationAdapterKills.ts`).
 */
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { type AdapterKills, reconcileAdapterKills } from "./mutationAdapterKills.ts"
import { applyRekeys, rekeyEquivalents } from "./mutationRekey.ts"
import { countMutants, equivalentKeys, summarizeMutationReport, type MutationReport, type ReportMutant } from "./mutationReport.ts"

const ROOT = process.cwd()
const MUTATION_DIR = join(ROOT, "mutation")
const SUBJECTS = ["alarms", "content", "clocks", "cron", "pool"] as const
/** Folders (and files) whose contents decide what the test command can detect, besides the subject. */
const TEST_SIDE = ["harness", "models", "properties", "spec", "adapters", "scripts/mutation-test.ts", "stryker.config.mjs"]

const incrementalFile = (subject: string): string => join(MUTATION_DIR, `${subject}.incremental.json`)
const testSideFile = (subject: string): string => join(MUTATION_DIR, `${subject}.test-side.json`)
const adapterKillsFile = (subject: string): string => join(MUTATION_DIR, `${subject}.adapter-kills.json`)

/** The adapter a subject's mutation test runs on unless `MUTATION_ADAPTER` says otherwise (as `stryker.config.mjs`). */
const defaultAdapterOf = (subject: string): string => (subject === "pool" ? "postgres" : "sqlite")

const readReport = (file: string): MutationReport | undefined => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) as MutationReport : undefined)

/**
 * Whether a mutant is in this run's scope: the `--mutate` files and line ranges (a glob: every file,
 * as its files are unknown here), else every file.
 */
const inMutateScope = (args: Args) => {
  const targets = args.mutate.map(mutateTarget)
  return (file: string, mutant: ReportMutant): boolean =>
    args.mutate.length === 0 || targets.some((target) => target === null || (target.file === file && mutant.location.start.line >= target.fromLine && mutant.location.start.line <= target.toLine))
}

/**
 * After a run: keeps the kills other adapters made (restores them where this run reports the mutant
 * undetected) and records the kills of a non-default run; says how many it restored.
 */
const keepAdapterKills = (subject: string, before: MutationReport | undefined, args: Args): string => {
  const after = readReport(incrementalFile(subject))
  if (after === undefined) return ""
  const defaultAdapter = defaultAdapterOf(subject)
  const adapter = process.env["MUTATION_ADAPTER"] ?? defaultAdapter
  const recorded = existsSync(adapterKillsFile(subject)) ? JSON.parse(readFileSync(adapterKillsFile(subject), "utf8")) as AdapterKills : {}
  // A --force run tested every mutant of its scope again.
  const inScope = inMutateScope(args)
  const reconciled = reconcileAdapterKills(before, after, recorded, { adapter, defaultAdapter, date: new Date().toISOString().slice(0, 10) }, (file, mutant) => args.force && inScope(file, mutant))
  if (reconciled.restored.length > 0) writeFileSync(incrementalFile(subject), JSON.stringify(reconciled.report))
  if (Object.keys(reconciled.kills).length > 0 || existsSync(adapterKillsFile(subject))) {
    writeFileSync(adapterKillsFile(subject), `${JSON.stringify(reconciled.kills, null, 2)}\n`)
  }
  return reconciled.restored.length === 0 ? "" : `mutation: ${reconciled.restored.length} mutants detected on another adapter kept as detected (${subject}.adapter-kills.json)\n`
}

/** Every file under `path` (bounded depth: the repository is shallow), sorted. */
const filesUnder = (path: string, depth = 0): ReadonlyArray<string> => {
  if (!existsSync(path)) return []
  if (!statSync(path).isDirectory()) return [path]
  if (depth > 8) throw new Error(`directory nesting deeper than 8 at ${path}`)
  return readdirSync(path).sort().flatMap((name) => filesUnder(join(path, name), depth + 1))
}

/** A hash of the test side: the files the mutation test runs besides the subject's implementation. */
export const testSideHash = (root: string = ROOT): string => {
  const hash = createHash("sha256")
  for (const file of TEST_SIDE.flatMap((entry) => filesUnder(join(root, entry)))) {
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0")
  }
  return hash.digest("hex")
}

/** Removes the survivors (and no-coverage mutants) from an incremental report, so Stryker tests them again. */
export const forgetSurvivors = (report: MutationReport): { readonly report: MutationReport; readonly forgotten: number } =>
  forgetSurvivorsIn(report, Object.keys(report.files).map((file) => ({ file, fromLine: 1, toLine: Number.MAX_SAFE_INTEGER, wholeFile: true })))

/** A `--mutate` entry as a file and a line range (the whole file by default); null for a glob. */
export interface MutateTarget {
  readonly file: string
  readonly fromLine: number
  readonly toLine: number
  readonly wholeFile: boolean
}

/** Parses a `--mutate` entry: `path`, `path:10-20` or `path:10:4-20:8` (Stryker's forms); null for a glob. */
export const mutateTarget = (entry: string): MutateTarget | null => {
  if (/[*?[\]{}!]/.test(entry)) return null
  const ranged = /^(.+?):(\d+)(?::\d+)?-(\d+)(?::\d+)?$/.exec(entry)
  if (ranged === null) return { file: entry, fromLine: 1, toLine: Number.MAX_SAFE_INTEGER, wholeFile: true }
  return { file: ranged[1]!, fromLine: Number(ranged[2]), toLine: Number(ranged[3]), wholeFile: false }
}

/** Removes the survivors (and no-coverage mutants) that start inside one of `targets`, so Stryker tests them again. */
export const forgetSurvivorsIn = (report: MutationReport, targets: ReadonlyArray<MutateTarget>): { readonly report: MutationReport; readonly forgotten: number } => {
  let forgotten = 0
  const files = Object.fromEntries(Object.entries(report.files).map(([name, file]) => {
    const mine = targets.filter((target) => target.file === name)
    const kept = file.mutants.filter((mutant) =>
      (mutant.status !== "Survived" && mutant.status !== "NoCoverage") ||
      !mine.some((target) => mutant.location.start.line >= target.fromLine && mutant.location.start.line <= target.toLine)
    )
    forgotten += file.mutants.length - kept.length
    return [name, { ...file, mutants: kept }]
  }))
  return { report: { ...report, files }, forgotten }
}

/** The test-side record: the hash of the last whole-subject run, and per file the hash its last `--mutate` run saw. */
interface TestSideRecord {
  readonly hash: string
  readonly files?: Readonly<Record<string, string>>
}

interface Args {
  readonly subjects: ReadonlyArray<string>
  readonly mutate: ReadonlyArray<string>
  readonly force: boolean
}

const parseArgs = (argv: ReadonlyArray<string>): Args => {
  const subjects: Array<string> = []
  const mutate: Array<string> = []
  let force = false
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    if (arg === "--force") force = true
    else if (arg === "--subject" || arg === "--mutate") (arg === "--subject" ? subjects : mutate).push(...(argv[++index] ?? "").split(",").filter((s) => s !== ""))
    else throw new Error(`unknown argument ${arg}: use --subject a,b, --mutate <glob>, --force`)
  }
  for (const subject of subjects) {
    if (!(SUBJECTS as ReadonlyArray<string>).includes(subject)) throw new Error(`unknown subject ${subject}: use one of ${SUBJECTS.join(", ")}`)
  }
  const measured = SUBJECTS.filter((subject) => subject === "alarms" || existsSync(incrementalFile(subject)))
  return { subjects: subjects.length > 0 ? subjects : measured, mutate, force }
}

/** When the test side changed since the last run, forgets the incremental file's survivors. */
const refreshForTestSide = (subject: string, hash: string): void => {
  if (!existsSync(incrementalFile(subject)) || !existsSync(testSideFile(subject))) return
  const recorded = JSON.parse(readFileSync(testSideFile(subject), "utf8")) as { readonly hash: string }
  if (recorded.hash === hash) return
  const { report, forgotten } = forgetSurvivors(JSON.parse(readFileSync(incrementalFile(subject), "utf8")) as MutationReport)
  writeFileSync(incrementalFile(subject), JSON.stringify(report))
  process.stdout.write(`mutation: the test side changed since the last ${subject} run; ${forgotten} survivors will be tested again\n`)
}

/**
 * On a `--mutate` run: when the test side changed since the mutated files were last measured, forgets
 * their survivors (only inside a given line range), so Stryker tests them again against the new test
 * side. Globs are left alone (their files are unknown here), with a note.
 */
const refreshTargets = (subject: string, hash: string, entries: ReadonlyArray<string>): void => {
  if (!existsSync(incrementalFile(subject)) || !existsSync(testSideFile(subject))) return
  const record = JSON.parse(readFileSync(testSideFile(subject), "utf8")) as TestSideRecord
  const targets = entries.map(mutateTarget)
  if (targets.includes(null)) process.stdout.write("mutation: --mutate globs: their survivors are not tested again after a test-side change; name files to retest them\n")
  const stale = targets.filter((target): target is MutateTarget => target !== null && (record.files?.[target.file] ?? record.hash) !== hash)
  if (stale.length === 0) return
  const { report, forgotten } = forgetSurvivorsIn(JSON.parse(readFileSync(incrementalFile(subject), "utf8")) as MutationReport, stale)
  writeFileSync(incrementalFile(subject), JSON.stringify(report))
  process.stdout.write(`mutation: the test side changed since ${stale.map((target) => target.file).join(", ")} ${stale.length === 1 ? "was" : "were"} last measured; ${forgotten} survivors will be tested again\n`)
}

/** Records, after a `--mutate` run, the test-side hash each wholly mutated file was measured against. */
const recordTargets = (subject: string, hash: string, entries: ReadonlyArray<string>): void => {
  const record = JSON.parse(readFileSync(testSideFile(subject), "utf8")) as TestSideRecord
  const measured = entries.map(mutateTarget).filter((target): target is MutateTarget => target?.wholeFile === true)
  if (measured.length === 0) return
  const files = { ...record.files, ...Object.fromEntries(measured.map((target) => [target.file, hash])) }
  writeFileSync(testSideFile(subject), `${JSON.stringify({ ...record, files }, null, 2)}\n`)
}

/**
 * Mutants of the incremental file Stryker detected (killed or timed out), outside `excluded` when given
 * (a forced run's scope, which it tests again); 0 when there is none yet.
 */
const detectedMutants = (subject: string, excluded?: (file: string, mutant: ReportMutant) => boolean): number => {
  const report = readReport(incrementalFile(subject))
  if (report === undefined) return 0
  const files = excluded === undefined
    ? report.files
    : Object.fromEntries(Object.entries(report.files).map(([file, entry]) => [file, { ...entry, mutants: entry.mutants.filter((mutant) => !excluded(file, mutant)) }]))
  const counts = countMutants({ ...report, files }, new Set())
  return counts.killed + counts.timeout
}

/**
 * Records the kill rate of this run in `mutation/<subject>.rate.json` (read by `npm run bench`): the
 * mutants detected by this run (not reused from the incremental file) per minute of its wall time.
 */
const recordKillRate = (subject: string, detectedThisRun: number, wallMs: number): string => {
  const perMinute = wallMs <= 0 ? 0 : detectedThisRun / (wallMs / 60_000)
  const record = { date: new Date().toISOString().slice(0, 10), detectedThisRun, wallMinutes: Number((wallMs / 60_000).toFixed(1)), killedPerMinute: Number(perMinute.toFixed(2)) }
  writeFileSync(join(MUTATION_DIR, `${subject}.rate.json`), `${JSON.stringify(record, null, 2)}\n`)
  return `${detectedThisRun} mutants killed by this run in ${record.wallMinutes} min: ${record.killedPerMinute} per minute`
}

/**
 * Moves the `equivalents.md` entries whose mutants moved with their code unchanged since `before`
 * (`mutationRekey.ts`), and says which; an entry whose code changed is left for a person to argue again.
 */
const followMovedEquivalents = (before: MutationReport | undefined, after: MutationReport): string => {
  const file = join(MUTATION_DIR, "equivalents.md")
  if (before === undefined || !existsSync(file)) return ""
  const markdown = readFileSync(file, "utf8")
  const moved = rekeyEquivalents(equivalentKeys(markdown), before, after)
  if (moved.length === 0) return ""
  writeFileSync(file, applyRekeys(markdown, moved))
  return `mutation: ${moved.length} equivalents.md entries follow their moved code:\n${moved.map((entry) => `  ${entry.from} -> ${entry.to.slice(0, entry.to.indexOf(" "))}\n`).join("")}`
}

const runSubject = (subject: string, args: Args): number => {
  const hash = testSideHash()
  const before = readReport(incrementalFile(subject))
  // A whole-subject run forgets every survivor; a --mutate run only those of the files it mutates
  // (Stryker would drop forgotten survivors of files it does not mutate until the next whole run).
  const whole = args.mutate.length === 0
  if (!args.force && whole) refreshForTestSide(subject, hash)
  if (!args.force && !whole) refreshTargets(subject, hash, args.mutate)
  const stryker = join(ROOT, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js")
  // One --mutate with every glob: Stryker keeps only the last of several --mutate flags.
  const flags = [...(args.mutate.length === 0 ? [] : ["--mutate", args.mutate.join(",")]), ...(args.force ? ["--force"] : [])]
  // A forced run tests its whole scope again: only what it detected outside it counts as from before.
  const detectedBefore = detectedMutants(subject, args.force ? inMutateScope(args) : undefined)
  const startedMs = performance.now()
  const result = spawnSync(process.execPath, [stryker, "run", "stryker.config.mjs", ...flags], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, MUTATION_SUBJECT: subject }
  })
  const wallMs = performance.now() - startedMs
  const minutes = (wallMs / 60_000).toFixed(1)
  if (result.status !== 0) {
    process.stderr.write(`mutation: Stryker failed on ${subject} (exit ${result.status ?? result.signal}) after ${minutes} min\n`)
    return 1
  }
  if (whole || !existsSync(testSideFile(subject))) {
    writeFileSync(testSideFile(subject), `${JSON.stringify({ hash, note: "sha256 of the test side at the last whole-subject run (scripts/mutation.ts); files: the hash each file's last --mutate run saw" }, null, 2)}\n`)
  } else recordTargets(subject, hash, args.mutate)
  process.stdout.write(keepAdapterKills(subject, before, args))
  const report = JSON.parse(readFileSync(incrementalFile(subject), "utf8")) as MutationReport
  process.stdout.write(followMovedEquivalents(before, report))
  const equivalents = existsSync(join(MUTATION_DIR, "equivalents.md")) ? equivalentKeys(readFileSync(join(MUTATION_DIR, "equivalents.md"), "utf8")) : new Set<string>()
  const rate = recordKillRate(subject, detectedMutants(subject) - detectedBefore, wallMs)
  process.stdout.write(`\n${summarizeMutationReport(subject, report, equivalents)}\n(${subject}: ${minutes} min; ${rate})\n`)
  return 0
}

const main = (): number => {
  const args = parseArgs(process.argv.slice(2))
  let failed = 0
  for (const subject of args.subjects) failed += runSubject(subject, args)
  return failed === 0 ? 0 : 1
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = main()
  } catch (error) {
    process.stderr.write(`mutation: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 2
  }
}
