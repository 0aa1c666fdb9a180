/**
 * The test command of `npm run mutation` (`scripts/mutation-test.ts`) can fail: it passes on the
 * shipped alarms implementation and fails, at the first divergence, on a known-bad one (one swapped
 * piece), both on sqlite at the gate's default budget. Plus the report helpers of `scripts/mutation.ts`:
 * reading `mutation/equivalents.md`, counting, and forgetting survivors when the test side changed.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { forgetSurvivors, forgetSurvivorsIn, mutateTarget } from "../../scripts/mutation.ts"
import { reconcileAdapterKills } from "../../scripts/mutationAdapterKills.ts"
import { applyRekeys, rekeyEquivalents } from "../../scripts/mutationRekey.ts"
import { MUTATION_EXIT, parseMutationTestArgs, runMutationTest } from "../../scripts/mutation-test.ts"
import { equivalentKeys, mutantKey, type MutationReport, summarizeMutationReport } from "../../scripts/mutationReport.ts"
import { knownBadAlarms } from "../known-bad/alarms/index.ts"

const options = parseMutationTestArgs(["--subject", "alarms"], {})

describe("scripts/mutation-test.ts", () => {
  it("parses the subject and refuses an unknown one", () => {
    expect(options).toMatchObject({ subject: "alarms", adapter: "sqlite", runs: 60 })
    expect(parseMutationTestArgs([], { MUTATION_SUBJECT: "cron" })).toMatchObject({ subject: "cron" })
    expect(parseMutationTestArgs(["--subject", "nope"], {})).toMatch(/pass --subject/)
    expect(parseMutationTestArgs(["--subject", "adapter"], {})).toMatch(/pass --subject/)
  })

  it("passes on the shipped implementation and fails on a known-bad one at its first divergence", async () => {
    if (typeof options === "string") throw new Error(options)
    const adapter = makeSqliteAdapter()
    const shipped = await Effect.runPromise(runMutationTest(alarmsSuite(), adapter, options))
    expect(shipped.exitCode, shipped.line).toBe(MUTATION_EXIT.survived)
    const bad = knownBadAlarms.find((entry) => entry.name === "h2-fixed-retry")!
    const caught = await Effect.runPromise(runMutationTest(alarmsSuite(bad.implementation), adapter, options))
    expect(caught.exitCode, caught.line).toBe(MUTATION_EXIT.diverged)
    expect(caught.line).toMatch(/^KILLED ALM-\d{3} by alarms\//)
  }, 240_000)
})

const mutant = (id: string, status: string, line: number, mutatorName = "BooleanLiteral") => ({
  id, status, mutatorName, replacement: "false", location: { start: { line, column: 3 }, end: { line, column: 8 } }
})

const report: MutationReport = {
  schemaVersion: "2",
  files: {
    "subjects/alarms/a.ts": {
      language: "typescript",
      source: "",
      mutants: [mutant("1", "Killed", 1), mutant("2", "Survived", 2), mutant("3", "Survived", 3), mutant("4", "Timeout", 4), mutant("5", "NoCoverage", 5), mutant("6", "CompileError", 6)]
    }
  }
}

describe("scripts/mutation.ts report helpers", () => {
  it("reads equivalents and scores over the non-equivalent mutants", () => {
    const equivalents = equivalentKeys("# x\n- `subjects/alarms/a.ts:3:3-3:8` BooleanLiteral `false` — argument\n- not a mutant line\n")
    expect([...equivalents]).toEqual(["subjects/alarms/a.ts:3:3-3:8 BooleanLiteral false"])
    const summary = summarizeMutationReport("alarms", report, equivalents)
    expect(summary).toContain("6 mutants: 1 killed, 1 timeout, 2 survived, 1 no coverage, 1 invalid")
    expect(summary).toContain("score 40.00% (2/5); over non-equivalent mutants 50.00% (2/4, 1 equivalent")
    expect(summary).toContain("subjects/alarms/a.ts:2:3-2:8 BooleanLiteral `false`\n")
    expect(summary).toContain("subjects/alarms/a.ts:3:3-3:8 BooleanLiteral `false` [equivalent]")
  })

  it("forgets survivors and no-coverage mutants, keeping the detected ones", () => {
    const { report: kept, forgotten } = forgetSurvivors(report)
    expect(forgotten).toBe(3)
    expect(kept.files["subjects/alarms/a.ts"]!.mutants.map((entry) => entry.status)).toEqual(["Killed", "Timeout", "CompileError"])
  })

  it("reads --mutate entries as files and line ranges, and refuses to guess a glob's files", () => {
    expect(mutateTarget("subjects/alarms/a.ts")).toEqual({ file: "subjects/alarms/a.ts", fromLine: 1, toLine: Number.MAX_SAFE_INTEGER, wholeFile: true })
    expect(mutateTarget("subjects/alarms/a.ts:3-9")).toEqual({ file: "subjects/alarms/a.ts", fromLine: 3, toLine: 9, wholeFile: false })
    expect(mutateTarget("subjects/alarms/a.ts:3:1-9:4")).toEqual({ file: "subjects/alarms/a.ts", fromLine: 3, toLine: 9, wholeFile: false })
    expect(mutateTarget("subjects/alarms/*.ts")).toBeNull()
  })

  it("forgets, for a --mutate run, only the survivors inside the mutated files and ranges", () => {
    const ranged = forgetSurvivorsIn(report, [mutateTarget("subjects/alarms/a.ts:3-5")!])
    expect(ranged.forgotten).toBe(2)
    expect(ranged.report.files["subjects/alarms/a.ts"]!.mutants.map((entry) => entry.id)).toEqual(["1", "2", "4", "6"])
    expect(forgetSurvivorsIn(report, [mutateTarget("subjects/alarms/b.ts")!]).forgotten).toBe(0)
    expect(forgetSurvivorsIn(report, [mutateTarget("subjects/alarms/a.ts")!]).forgotten).toBe(3)
  })
})

/** `report` with the statuses of mutants `ids` set to `status`. */
const withStatus = (ids: ReadonlyArray<string>, status: string): MutationReport => ({
  ...report,
  files: { "subjects/alarms/a.ts": { ...report.files["subjects/alarms/a.ts"]!, mutants: report.files["subjects/alarms/a.ts"]!.mutants.map((entry) => (ids.includes(entry.id) ? { ...entry, status } : entry)) } }
})

const statuses = (kept: MutationReport) => kept.files["subjects/alarms/a.ts"]!.mutants.map((entry) => entry.status)

describe("scripts/mutationAdapterKills.ts", () => {
  const keyOf = (id: string) => mutantKey("subjects/alarms/a.ts", report.files["subjects/alarms/a.ts"]!.mutants.find((entry) => entry.id === id)!)
  const postgresRun = { adapter: "postgres", defaultAdapter: "sqlite", date: "2026-12-04" }
  const sqliteRun = { adapter: "sqlite", defaultAdapter: "sqlite", date: "2026-12-05" }

  it("records the kills a non-default run adds, and keeps them through a later default run", () => {
    const onPostgres = reconcileAdapterKills(report, withStatus(["2"], "Killed"), {}, postgresRun)
    expect(onPostgres.kills).toEqual({ [keyOf("2")]: { adapter: "postgres", status: "Killed", date: "2026-12-04" } })
    expect(onPostgres.restored).toEqual([])
    // The sqlite rerun reports 2 as a survivor again: the postgres kill stands, and says where it was made.
    const onSqlite = reconcileAdapterKills(onPostgres.report, report, onPostgres.kills, sqliteRun)
    expect(onSqlite.restored).toEqual([keyOf("2")])
    expect(statuses(onSqlite.report)).toEqual(["Killed", "Killed", "Survived", "Timeout", "NoCoverage", "CompileError"])
    expect(onSqlite.kills).toEqual(onPostgres.kills)
  })

  it("records nothing on the default adapter, and drops a record its own adapter no longer confirms", () => {
    expect(reconcileAdapterKills(report, withStatus(["2"], "Killed"), {}, sqliteRun).kills).toEqual({})
    const recorded = { [keyOf("3")]: { adapter: "postgres", status: "Killed", date: "2026-12-04" } }
    const again = reconcileAdapterKills(withStatus(["3"], "Killed"), report, recorded, postgresRun)
    expect(again.restored).toEqual([])
    expect(again.kills).toEqual({})
    expect(statuses(again.report)).toEqual(statuses(report))
  })

  it("records, on a forced run, the kills it reuses from before too: it tested them again", () => {
    const forced = reconcileAdapterKills(withStatus(["2"], "Killed"), withStatus(["2"], "Killed"), {}, postgresRun, (_file, entry) => entry.id === "2")
    expect(Object.keys(forced.kills)).toEqual([keyOf("2")])
    expect(reconcileAdapterKills(withStatus(["2"], "Killed"), withStatus(["2"], "Killed"), {}, postgresRun).kills).toEqual({})
  })

  it("never lets a non-default run turn a kill of the default adapter into a survivor", () => {
    const onSqlite = withStatus(["2"], "Killed")
    const onPostgres = reconcileAdapterKills(onSqlite, report, {}, postgresRun)
    expect(onPostgres.restored).toEqual([keyOf("2")])
    expect(statuses(onPostgres.report)).toEqual(statuses(onSqlite))
    expect(onPostgres.kills).toEqual({})
    // On the default adapter a kill that does not hold any more is a survivor again.
    expect(statuses(reconcileAdapterKills(onSqlite, report, {}, sqliteRun).report)).toEqual(statuses(report))
  })

  it("keeps a detection that a default run never reached, recorded or not, but not one it reached and missed", () => {
    const detectedBefore = withStatus(["2", "3"], "Killed")
    const after = withStatus(["2"], "NoCoverage")
    const onSqlite = reconcileAdapterKills(detectedBefore, after, {}, sqliteRun)
    expect(onSqlite.restored).toEqual([keyOf("2")])
    // 2 was not reached, so its kill stands; 3 was reached and survived, so its kill is lost.
    expect(statuses(onSqlite.report)).toEqual(["Killed", "Killed", "Survived", "Timeout", "NoCoverage", "CompileError"])
    expect(onSqlite.kills).toEqual({})
  })

  it("forgets the record of a mutant that is gone (its code changed)", () => {
    const recorded = { "subjects/alarms/gone.ts:1:1-1:2 BooleanLiteral false": { adapter: "postgres", status: "Killed", date: "2026-12-04" } }
    expect(reconcileAdapterKills(report, report, recorded, sqliteRun).kills).toEqual({})
  })
})

describe("scripts/mutationRekey.ts", () => {
  const at = (line: number, column: number, endColumn: number) => ({ start: { line, column }, end: { line, column: endColumn } })
  const reportOf = (source: string, mutants: ReadonlyArray<{ readonly id: string; readonly line: number; readonly column: number; readonly endColumn: number; readonly replacement: string }>): MutationReport => ({
    schemaVersion: "2",
    files: { "subjects/cron/a.ts": { language: "typescript", source, mutants: mutants.map((m) => ({ id: m.id, status: "Survived", mutatorName: "ConditionalExpression", replacement: m.replacement, location: at(m.line, m.column, m.endColumn) })) } } as MutationReport["files"]
  })
  const earlier = reportOf("const a = 1\nif (x > 1) go()\n", [{ id: "1", line: 2, column: 5, endColumn: 10, replacement: "true" }])
  const entry = "- `subjects/cron/a.ts:2:5-2:10` ConditionalExpression `true` — argument"

  it("moves an entry whose mutated code and line read the same, and leaves one whose code changed", () => {
    const moved = reportOf("// new\nconst a = 1\nif (x > 1) go()\n", [{ id: "1", line: 3, column: 5, endColumn: 10, replacement: "true" }])
    const rekeyed = rekeyEquivalents(equivalentKeys(entry), earlier, moved)
    expect(rekeyed).toEqual([{ from: "subjects/cron/a.ts:2:5-2:10 ConditionalExpression true", to: "subjects/cron/a.ts:3:5-3:10 ConditionalExpression true" }])
    expect(applyRekeys(`# x\n${entry}\n`, rekeyed)).toBe("# x\n- `subjects/cron/a.ts:3:5-3:10` ConditionalExpression `true` — argument\n")
    const changed = reportOf("// new\nconst a = 1\nif (x >= 1) go()\n", [{ id: "1", line: 3, column: 5, endColumn: 11, replacement: "true" }])
    expect(rekeyEquivalents(equivalentKeys(entry), earlier, changed)).toEqual([])
    // Still where it was: nothing to move.
    expect(rekeyEquivalents(equivalentKeys(entry), earlier, earlier)).toEqual([])
  })
})
