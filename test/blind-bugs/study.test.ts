/**
 * The blind-bug study's pure parts (`blind-bugs/study.ts`), and that every checked-in bug set still
 * applies to the implementation it patches: an edit to an example that moves a bug's text makes the
 * study unreproducible, and this test says which bug to update.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { BlindBug, BlindBugSet } from "../../blind-bugs/BlindBug.ts"
import { applyBug, BlindBugSetError, type GateReport, occurrences, outcomeOf, problemsOf, subjectOfSetFile } from "../../blind-bugs/study.ts"

const bug = (overrides: Partial<BlindBug> = {}): BlindBug => ({
  id: "off-by-one",
  file: "impl/a.ts",
  find: "x <= y",
  replace: "x < y",
  rules: ["R2"],
  summary: "s",
  observable: "o",
  ...overrides
})

const set = (bugs: ReadonlyArray<BlindBug>): BlindBugSet => ({ subject: "alarms", implementation: "impl", bugs })

describe("applying a bug", () => {
  it("counts non-overlapping occurrences", () => {
    expect(occurrences("aaaa", "aa")).toBe(2)
    expect(occurrences("abc", "d")).toBe(0)
    expect(occurrences("abc", "")).toBe(0)
  })

  it("replaces the one occurrence and refuses zero or two", () => {
    expect(applyBug("if (x <= y) go()", bug())).toBe("if (x < y) go()")
    expect(() => applyBug("if (x < y) go()", bug())).toThrow(BlindBugSetError)
    expect(() => applyBug("x <= y; x <= y", bug())).toThrow(/occurs 2 times/)
  })
})

describe("checking a bug set", () => {
  const files: Record<string, string> = { "impl/a.ts": "if (x <= y) go()\nx <= z" }
  const read = (file: string) => files[file]

  it("accepts a set whose every find occurs once in its file", () => {
    expect(problemsOf(set([bug()]), read)).toEqual([])
  })

  it("names each problem and the bug it belongs to", () => {
    const problems = problemsOf(set([
      bug({ id: "Bad Id" }),
      bug(),
      bug({ id: "off-by-one" }),
      bug({ id: "outside", file: "other/a.ts" }),
      bug({ id: "missing-file", file: "impl/b.ts" }),
      bug({ id: "twice", find: "x <=" }),
      bug({ id: "no-rule", rules: [] }),
      bug({ id: "same", replace: "x <= y" })
    ]), read)
    expect(problems).toEqual([
      "alarms/Bad Id: the id is not kebab-case",
      "alarms/off-by-one: the id is used twice",
      "alarms/outside: other/a.ts is not inside impl",
      "alarms/outside: other/a.ts does not exist",
      "alarms/missing-file: impl/b.ts does not exist",
      "alarms/twice: its find text occurs 2 times in impl/a.ts (must be exactly once: the implementation changed, or lengthen the text)",
      "alarms/no-rule: no reference rule cited",
      "alarms/same: find and replace are the same text"
    ])
  })
})

describe("naming a bug set's file", () => {
  it("is its subject, then a round number for every later set", () => {
    expect(subjectOfSetFile("clocks.ts")).toBe("clocks")
    expect(subjectOfSetFile("clocks-2.ts")).toBe("clocks")
    expect(subjectOfSetFile("BlindBug.ts")).toBeUndefined()
    expect(subjectOfSetFile("clocks-two.ts")).toBeUndefined()
    expect(subjectOfSetFile("queue.ts")).toBeUndefined()
  })
})

describe("reading a gate report", () => {
  const report = (requirements: GateReport["adapters"][number]["requirements"]): GateReport => ({ adapters: [{ requirements }] })
  const rulesOf = (id: string) => (id === "ALM-002" ? ["R2"] : ["R9"])

  it("is caught when a requirement failed, and says whether it cites a named rule", () => {
    const caught = outcomeOf(bug(), report([
      { requirementId: "ALM-002", verdict: "fail", counterexample: { runsToDetect: 4, trace: { steps: [1, 2, 3] }, propertyId: "alarms/model" } },
      { requirementId: "ALM-009", verdict: "pass" }
    ]), rulesOf)
    expect(caught).toEqual({ outcome: "caught", failed: [{ requirementId: "ALM-002", runsToDetect: 4, steps: 3, propertyId: "alarms/model" }], unshown: [], namedRuleHit: true })
    expect(outcomeOf(bug({ rules: ["R5"] }), report([{ requirementId: "ALM-002", verdict: "fail" }]), rulesOf).namedRuleHit).toBe(false)
  })

  it("is not shown when nothing failed but something is unknown, missed when all passed, broke without a report", () => {
    expect(outcomeOf(bug(), report([{ requirementId: "ALM-002", verdict: "unknown" }, { requirementId: "ALM-009", verdict: "pass" }]), rulesOf).outcome).toBe("not-shown")
    expect(outcomeOf(bug(), report([{ requirementId: "ALM-002", verdict: "pass" }, { requirementId: "ALM-009", verdict: "not-applicable" }]), rulesOf).outcome).toBe("missed")
    expect(outcomeOf(bug(), undefined, rulesOf).outcome).toBe("broke")
  })
})

describe("the checked-in bug sets", () => {
  const root = join(import.meta.dirname, "..", "..")
  const setFiles = readdirSync(join(root, "blind-bugs")).filter((name) => subjectOfSetFile(name) !== undefined)

  it("exist", () => {
    expect(setFiles.length).toBeGreaterThan(0)
  })

  it.each(setFiles)("%s applies to its implementation as written", async (name) => {
    const { bugs } = await import(join(root, "blind-bugs", name)) as { readonly bugs: BlindBugSet }
    expect(bugs.subject).toBe(subjectOfSetFile(name))
    expect(bugs.bugs.length).toBeGreaterThan(0)
    const read = (file: string) => (existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8") : undefined)
    expect(problemsOf(bugs, read)).toEqual([])
  })
})
