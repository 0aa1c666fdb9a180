/**
 * `npm run blind-bugs [-- --subject content,cron] [--bug id] [--adapter pglite] [--write]`: the blind-bug
 * study. Each `blind-bugs/<subject>.ts` holds bugs seeded into an implementation we did not write
 * (`examples/`) by authors who had not read the suite (`blind-bugs/README.md`). For every set this runs
 * the gate on the unmodified implementation (it must pass, or the study says so), then, per bug, on a
 * copy of the implementation folder with the bug applied (`<folder>.blind`, removed afterwards), and
 * prints one line per bug: caught (which requirements, after how many scenarios, in how many steps),
 * not shown, missed or broke. `--write` also writes `blind-bugs/RESULTS.md`. Not part of CI: each bug is
 * one gate run of its subject (about 10-60 s).
 */
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { subjectPlugins } from "../properties/plugins.ts"
import type { BlindBug, BlindBugSet } from "../blind-bugs/BlindBug.ts"
import { applyBug, type BugOutcome, type GateReport, outcomeOf, problemsOf } from "../blind-bugs/study.ts"

const ROOT = process.cwd()
const SUBJECTS = ["alarms", "content", "clocks", "cron", "pool"] as const
/** Longest one gate run may take before the study records the bug as broke (a hung implementation). */
const GATE_TIMEOUT_MS = 15 * 60_000

interface Args {
  readonly subjects: ReadonlyArray<string>
  readonly bug: string | undefined
  readonly adapter: string | undefined
  readonly write: boolean
}

const usage = "use --subject a,b (of alarms, content, clocks, cron, pool), --bug <id>, --adapter <name>, --write"

const parseArgs = (argv: ReadonlyArray<string>): Args => {
  let subjects: ReadonlyArray<string> = SUBJECTS.filter((subject) => existsSync(join(ROOT, "blind-bugs", `${subject}.ts`)))
  let bug: string | undefined
  let adapter: string | undefined
  let write = false
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    const value = () => argv[++index] ?? (() => { throw new Error(`${arg} needs a value: ${usage}`) })()
    if (arg === "--subject") subjects = value().split(",").filter((subject) => subject !== "")
    else if (arg === "--bug") bug = value()
    else if (arg === "--adapter") adapter = value()
    else if (arg === "--write") write = true
    else throw new Error(`unknown argument ${arg}: ${usage}`)
  }
  const unknown = subjects.filter((subject) => !(SUBJECTS as ReadonlyArray<string>).includes(subject))
  if (unknown.length > 0) throw new Error(`unknown subject ${unknown.join(", ")}: ${usage}`)
  return { subjects, bug, adapter, write }
}

/** The adapter a subject's study runs on: pool needs a real Postgres server, the others embedded SQLite. */
const adapterOf = (subject: string, args: Args): string => args.adapter ?? (subject === "pool" ? "postgres" : "sqlite")

const readText = (file: string): string | undefined => (existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), "utf8") : undefined)

const loadSet = async (subject: string): Promise<BlindBugSet> => {
  const module = await import(join(ROOT, "blind-bugs", `${subject}.ts`)) as { readonly bugs?: BlindBugSet }
  if (module.bugs === undefined || module.bugs.subject !== subject) throw new Error(`blind-bugs/${subject}.ts must export \`bugs\`, a BlindBugSet of subject ${subject}`)
  const problems = problemsOf(module.bugs, readText)
  if (problems.length > 0) throw new Error(`blind-bugs/${subject}.ts cannot be applied:\n  ${problems.join("\n  ")}`)
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
  readonly subject: string
  readonly bug: BlindBug
  readonly outcome: BugOutcome
  readonly seconds: number
}

const failedText = (outcome: BugOutcome): string =>
  outcome.failed.map((failed) => failed.runsToDetect === undefined ? failed.requirementId : `${failed.requirementId} (${failed.propertyId}, scenario ${failed.runsToDetect}, ${failed.steps} steps)`).join("; ")

const lineOf = (row: Row): string =>
  `${row.subject}/${row.bug.id} [${row.bug.rules.join(", ")}]: ${row.outcome.outcome}${row.outcome.failed.length > 0 ? ` by ${failedText(row.outcome)}` : ""}` +
  `${row.outcome.outcome === "caught" && !row.outcome.namedRuleHit ? " (no failed requirement cites the named rules)" : ""}` +
  `${row.outcome.unshown.length > 0 ? `; not shown: ${row.outcome.unshown.join(", ")}` : ""} (${row.seconds} s)`

/** `blind-bugs/RESULTS.md`: the date, the settings, a table of every bug, and the totals per subject. */
const resultsMarkdown = (rows: ReadonlyArray<Row>, baselines: ReadonlyArray<string>, adapterBySubject: ReadonlyMap<string, string>): string => {
  const escape = (text: string) => text.replaceAll("|", "\\|")
  const table = rows.map((row) =>
    `| ${row.subject} | \`${row.bug.id}\` | ${row.bug.rules.join(", ")} | ${escape(row.bug.summary)} | **${row.outcome.outcome}** | ${escape(failedText(row.outcome) || "-")} | ${row.outcome.outcome !== "caught" ? "-" : row.outcome.namedRuleHit ? "yes" : "no"} |`)
  const totals = [...adapterBySubject].map(([subject, adapter]) => {
    const mine = rows.filter((row) => row.subject === subject)
    const caught = mine.filter((row) => row.outcome.outcome === "caught").length
    return `| ${subject} | ${adapter} | ${mine.length} | ${caught} | ${mine.length - caught} |`
  })
  return [
    "# Blind-bug study: results",
    "",
    `Written by \`npm run blind-bugs -- --write\` on ${new Date().toISOString().slice(0, 10)}: the gate's default budget and seed, one gate run per bug. How the bugs were written: \`README.md\`.`,
    "",
    "Baselines (the unmodified implementation):",
    ...baselines.map((line) => `- ${line}`),
    "",
    "| subject | adapter | bugs | caught | not caught |",
    "|---|---|---|---|---|",
    ...totals,
    "",
    "| subject | bug | rules named | the bug | outcome | failed requirements (property, scenario of first detection, steps of the minimized counterexample) | a failed requirement cites a named rule |",
    "|---|---|---|---|---|---|---|",
    ...table,
    ""
  ].join("\n")
}

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2))
  const rows: Array<Row> = []
  const baselines: Array<string> = []
  const adapterBySubject = new Map<string, string>()
  for (const subject of args.subjects) {
    const set = await loadSet(subject)
    const adapter = adapterOf(subject, args)
    adapterBySubject.set(subject, adapter)
    const baseline = runGate(subject, adapter, `./${set.implementation}/index.ts`)
    const baselineOutcome = outcomeOf({ id: "baseline", file: "", find: "", replace: "", rules: [], summary: "", observable: "" }, baseline.report, rulesOf)
    baselines.push(`${subject} (${set.implementation}) on ${adapter}: ${baselineOutcome.outcome === "missed" ? "every requirement passes or is not applicable" : `${baselineOutcome.outcome}${baselineOutcome.failed.length > 0 ? ` by ${failedText(baselineOutcome)}` : ""}`} (${baseline.seconds} s)`)
    process.stdout.write(`baseline ${baselines.at(-1)}\n`)
    for (const bug of set.bugs.filter((candidate) => args.bug === undefined || candidate.id === args.bug)) {
      const { outcome, seconds } = runBug(set, bug, adapter)
      rows.push({ subject, bug, outcome, seconds })
      process.stdout.write(`${lineOf(rows.at(-1)!)}\n`)
    }
  }
  const caught = rows.filter((row) => row.outcome.outcome === "caught").length
  process.stdout.write(`\n${caught} of ${rows.length} blind bugs caught\n`)
  if (args.write) writeFileSync(join(ROOT, "blind-bugs", "RESULTS.md"), resultsMarkdown(rows, baselines, adapterBySubject))
}

await main()
