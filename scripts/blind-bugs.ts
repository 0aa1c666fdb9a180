/**
 * `npm run blind-bugs [-- --subject content,cron] [--set clocks-2] [--bug id] [--adapter pglite] [--write [--results RESULTS-3.md]]`:
 * the blind-bug study. Each `blind-bugs/<subject>.ts` (and `<subject>-<n>.ts`, a later set by another
 * author) holds bugs seeded into an implementation we did not write (`examples/`) by authors who had
 * not read the suite (`blind-bugs/README.md`). For every set this runs
 * the gate on the unmodified implementation (it must pass, or the study says so), then, per bug, on a
 * copy of the implementation folder with the bug applied (`<folder>.blind`, removed afterwards), and
 * prints one line per bug: caught (which requirements, after how many scenarios, in how many steps),
 * not shown, missed or broke. A bug the embedded backend does not catch is run again on a Postgres
 * server (`adaptersOf`), and the line says where it was caught. `--write` also writes `blind-bugs/RESULTS.md` (another
 * file of `blind-bugs/` with `--results RESULTS-3.md`, for a set measured on its own). Not part of CI: each bug is
 * one gate run of its subject (about 10-60 s).
 */
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { subjectPlugins } from "../properties/plugins.ts"
import type { BlindBug, BlindBugSet } from "../blind-bugs/BlindBug.ts"
import { applyBug, type BugOutcome, type GateReport, outcomeOf, problemsOf, subjectOfSetFile } from "../blind-bugs/study.ts"

const ROOT = process.cwd()
const SUBJECTS = ["alarms", "content", "clocks", "cron", "pool"] as const
/** Longest one gate run may take before the study records the bug as broke (a hung implementation). */
const GATE_TIMEOUT_MS = 15 * 60_000

interface Args {
  readonly subjects: ReadonlyArray<string>
  /** Set file stems to run (`clocks-2`), or undefined for every set of the subjects. */
  readonly sets: ReadonlyArray<string> | undefined
  readonly bug: string | undefined
  readonly adapter: string | undefined
  readonly write: boolean
  /** The file `--write` writes, in `blind-bugs/` (default `RESULTS.md`). */
  readonly resultsFile: string
}

const usage = "use --subject a,b (of alarms, content, clocks, cron, pool), --set clocks-2, --bug <id>, --adapter <name>, --write [--results RESULTS-3.md]"

/** A set stem's round: 1 for `clocks`, n for `clocks-n`. */
const roundOf = (stem: string): number => Number(/-(\d+)$/.exec(stem)?.[1] ?? 1)

/** Every set file stem in `blind-bugs/` (`clocks`, `clocks-2`, ...), by subject (`SUBJECTS` order), then round. */
const setStems = (): ReadonlyArray<string> =>
  readdirSync(join(ROOT, "blind-bugs")).filter((name) => subjectOfSetFile(name) !== undefined).map((name) => name.replace(/\.ts$/, ""))
    .sort((a, b) => subjectIndexOf(a) - subjectIndexOf(b) || roundOf(a) - roundOf(b))

/** A set stem's subject's place in `SUBJECTS`. */
const subjectIndexOf = (stem: string): number => (SUBJECTS as ReadonlyArray<string>).indexOf(subjectOfSetFile(`${stem}.ts`) ?? "")

const parseArgs = (argv: ReadonlyArray<string>): Args => {
  let subjects: ReadonlyArray<string> = SUBJECTS
  let sets: ReadonlyArray<string> | undefined
  let bug: string | undefined
  let adapter: string | undefined
  let write = false
  let resultsFile = "RESULTS.md"
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    const value = () => argv[++index] ?? (() => { throw new Error(`${arg} needs a value: ${usage}`) })()
    if (arg === "--subject") subjects = value().split(",").filter((subject) => subject !== "")
    else if (arg === "--set") sets = value().split(",").filter((stem) => stem !== "")
    else if (arg === "--bug") bug = value()
    else if (arg === "--adapter") adapter = value()
    else if (arg === "--write") write = true
    else if (arg === "--results") resultsFile = value()
    else throw new Error(`unknown argument ${arg}: ${usage}`)
  }
  const unknown = subjects.filter((subject) => !(SUBJECTS as ReadonlyArray<string>).includes(subject))
  if (unknown.length > 0) throw new Error(`unknown subject ${unknown.join(", ")}: ${usage}`)
  const unknownSets = (sets ?? []).filter((stem) => !setStems().includes(stem))
  if (unknownSets.length > 0) throw new Error(`unknown set ${unknownSets.join(", ")} (there are ${setStems().join(", ")}): ${usage}`)
  if (!/^RESULTS[\w-]*\.md$/.test(resultsFile)) throw new Error(`--results ${resultsFile}: give a file name in blind-bugs/ such as RESULTS-3.md: ${usage}`)
  return { subjects, sets, bug, adapter, write, resultsFile }
}

/**
 * The adapters a subject's study runs on, in order: `--adapter` alone when given; pool needs a real
 * Postgres server; the others run on embedded SQLite, and a bug not caught there is run again on a
 * Postgres server, where two processes' transactions truly overlap (a race the embedded backends
 * serialise cannot show there).
 */
const adaptersOf = (subject: string, args: Args): ReadonlyArray<string> =>
  args.adapter !== undefined ? [args.adapter] : subject === "pool" ? ["postgres"] : ["sqlite", "postgres"]

const readText = (file: string): string | undefined => (existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), "utf8") : undefined)

const loadSet = async (stem: string): Promise<BlindBugSet> => {
  const module = await import(join(ROOT, "blind-bugs", `${stem}.ts`)) as { readonly bugs?: BlindBugSet }
  const subject = subjectOfSetFile(`${stem}.ts`)
  if (module.bugs === undefined || module.bugs.subject !== subject) throw new Error(`blind-bugs/${stem}.ts must export \`bugs\`, a BlindBugSet of subject ${subject}`)
  const problems = problemsOf(module.bugs, readText)
  if (problems.length > 0) throw new Error(`blind-bugs/${stem}.ts cannot be applied:\n  ${problems.join("\n  ")}`)
  return module.bugs
}

/** Runs the gate of `subject` on `implementationIndex` and returns its report (undefined: none written) and wall seconds. */
const runGate = (subject: string, adapter: string, implementationIndex: string): { readonly report: GateReport | undefined; readonly seconds: number } => {
  const out = mkdtempSync(join(tmpdir(), "blind-bug-"))
  const started = Date.now()
  try {
    const run = spawnSync("npx", ["tsx", "cli/main.ts", "run", "--subject", subject, "--adapter", adapter, "--implementation", implementationIndex, "--out", out, "--quiet"], { cwd: ROOT, encoding: "utf8", timeout: GATE_TIMEOUT_MS })
    const reportFile = join(out, "report.json")
    const report = existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, "utf8")) as GateReport : undefined
    if (report === undefined) process.stdout.write(`    (no report; exit ${run.status}: ${(run.stderr ?? "").trim().split("\n").slice(-2).join(" / ")})\n`)
    return { report, seconds: Math.round((Date.now() - started) / 1000) }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

/** Applies `bug` to a fresh copy of the set's implementation folder, runs the gate there, removes the copy. */
const runBug = (set: BlindBugSet, bug: BlindBug, adapter: string): { readonly outcome: BugOutcome; readonly seconds: number } => {
  const copy = `${set.implementation}.blind`
  rmSync(join(ROOT, copy), { recursive: true, force: true })
  cpSync(join(ROOT, set.implementation), join(ROOT, copy), { recursive: true })
  try {
    const file = join(ROOT, copy, bug.file.slice(set.implementation.length + 1))
    writeFileSync(file, applyBug(readFileSync(file, "utf8"), bug))
    const { report, seconds } = runGate(set.subject, adapter, `./${copy}/index.ts`)
    return { outcome: outcomeOf(bug, report, rulesOf), seconds }
  } finally {
    rmSync(join(ROOT, copy), { recursive: true, force: true })
  }
}

const rules = new Map(subjectPlugins.flatMap((plugin) => plugin.requirements.map((requirement) => [requirement.id, requirement.rules] as const)))
const rulesOf = (requirementId: string): ReadonlyArray<string> => rules.get(requirementId) ?? []

/** One line of the printed (and written) table. */
interface Row {
  /** The set's file stem (`clocks-2`). */
  readonly set: string
  readonly subject: string
  readonly bug: BlindBug
  readonly outcome: BugOutcome
  /** The adapter of the last gate run of the bug (where it was caught, when it was). */
  readonly adapter: string
  readonly seconds: number
}

const failedText = (outcome: BugOutcome): string =>
  outcome.failed.map((failed) => failed.runsToDetect === undefined ? failed.requirementId : `${failed.requirementId} (${failed.propertyId}, scenario ${failed.runsToDetect}, ${failed.steps} steps)`).join("; ")

const lineOf = (row: Row): string =>
  `${row.set}/${row.bug.id} [${row.bug.rules.join(", ")}]: ${row.outcome.outcome}${row.outcome.failed.length > 0 ? ` by ${failedText(row.outcome)}` : ""}` +
  `${row.outcome.outcome === "caught" && !row.outcome.namedRuleHit ? " (no failed requirement cites the named rules)" : ""}` +
  `${row.outcome.unshown.length > 0 ? `; not shown: ${row.outcome.unshown.join(", ")}` : ""} on ${row.adapter} (${row.seconds} s)`

/** `blind-bugs/RESULTS.md`: the date, the settings, a table of every bug, and the totals per subject. */
const resultsMarkdown = (rows: ReadonlyArray<Row>, baselines: ReadonlyArray<string>, adapterBySubject: ReadonlyMap<string, ReadonlyArray<string>>, command: string): string => {
  const escape = (text: string) => text.replaceAll("|", "\\|")
  const table = rows.map((row) =>
    `| ${row.set} | \`${row.bug.id}\` | ${row.bug.rules.join(", ")} | ${escape(row.bug.summary)} | **${row.outcome.outcome}** | ${row.adapter} | ${escape(failedText(row.outcome) || "-")} | ${row.outcome.outcome !== "caught" ? "-" : row.outcome.namedRuleHit ? "yes" : "no"} |`)
  const totals = [...new Set(rows.map((row) => row.set))].map((set) => {
    const mine = rows.filter((row) => row.set === set)
    const caught = mine.filter((row) => row.outcome.outcome === "caught").length
    return `| ${set} | ${(adapterBySubject.get(mine[0]!.subject) ?? []).join(", then ")} | ${mine.length} | ${caught} | ${mine.length - caught} |`
  })
  return [
    "# Blind-bug study: results",
    "",
    `Written by \`${command}\` on ${new Date().toISOString().slice(0, 10)}: the gate's default budget and seed, one gate run per bug. How the bugs were written: \`README.md\`.`,
    "",
    "Baselines (the unmodified implementation):",
    ...baselines.map((line) => `- ${line}`),
    "",
    "| set | adapters (the next only for a bug the one before did not catch) | bugs | caught | not caught |",
    "|---|---|---|---|---|",
    ...totals,
    "",
    "| set | bug | rules named | the bug | outcome | adapter | failed requirements (property, scenario of first detection, steps of the minimized counterexample) | a failed requirement cites a named rule |",
    "|---|---|---|---|---|---|---|---|",
    ...table,
    ""
  ].join("\n")
}

/** The baseline gate run of `subject` on `adapter`, in words (printed, and kept for `RESULTS.md`). */
const baselineLine = (subject: string, set: BlindBugSet, adapter: string): string => {
  const baseline = runGate(subject, adapter, `./${set.implementation}/index.ts`)
  const outcome = outcomeOf({ id: "baseline", file: "", find: "", replace: "", rules: [], summary: "", observable: "" }, baseline.report, rulesOf)
  const verdict = outcome.outcome === "missed" ? "every requirement passes or is not applicable" : `${outcome.outcome}${outcome.failed.length > 0 ? ` by ${failedText(outcome)}` : ""}`
  return `${subject} (${set.implementation}) on ${adapter}: ${verdict} (${baseline.seconds} s)`
}

/**
 * Runs `bug` of set `stem` on each adapter in turn until one catches it; each implementation's baseline
 * on an adapter runs once, before its first bug there.
 */
const studyBug = (stem: string, set: BlindBugSet, bug: BlindBug, adapters: ReadonlyArray<string>, baselines: Map<string, string>): Row => {
  const subject = set.subject
  let row: Row | undefined
  for (const adapter of adapters) {
    const key = `${set.implementation} ${adapter}`
    if (!baselines.has(key)) {
      baselines.set(key, baselineLine(subject, set, adapter))
      process.stdout.write(`baseline ${baselines.get(key)}\n`)
    }
    const { outcome, seconds } = runBug(set, bug, adapter)
    row = { set: stem, subject, bug, outcome, adapter, seconds: seconds + (row?.seconds ?? 0) }
    if (outcome.outcome === "caught") break
  }
  return row!
}

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2))
  const rows: Array<Row> = []
  const baselines = new Map<string, string>()
  const adapterBySubject = new Map<string, ReadonlyArray<string>>()
  const stems = setStems().filter((stem) => args.subjects.includes(subjectOfSetFile(`${stem}.ts`)!) && (args.sets === undefined || args.sets.includes(stem)))
  for (const stem of stems) {
    const set = await loadSet(stem)
    const adapters = adaptersOf(set.subject, args)
    adapterBySubject.set(set.subject, adapters)
    for (const bug of set.bugs.filter((candidate) => args.bug === undefined || candidate.id === args.bug)) {
      rows.push(studyBug(stem, set, bug, adapters, baselines))
      process.stdout.write(`${lineOf(rows.at(-1)!)}\n`)
    }
  }
  const caught = rows.filter((row) => row.outcome.outcome === "caught").length
  process.stdout.write(`\n${caught} of ${rows.length} blind bugs caught\n`)
  if (args.write) writeFileSync(join(ROOT, "blind-bugs", args.resultsFile), resultsMarkdown(rows, [...baselines.values()], adapterBySubject, `npm run blind-bugs -- ${process.argv.slice(2).join(" ")}`))
}

await main()
