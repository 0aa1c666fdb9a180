import { execFile } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { readReport } from "../../reports/json.ts"
import { runCli, scratchDir } from "./support.ts"

const fixtures = resolve(import.meta.dirname, "fixtures")
const root = resolve(import.meta.dirname, "../..")

const oneLine = (text: string) => text.trim().split("\n").length === 1

describe("durable-conformance list", () => {
  it("lists adapters with capabilities and every requirement", async () => {
    const result = await runCli(["list"])
    expect(result.code).toBe(0)
    for (const name of ["sqlite", "pglite", "postgres", "do-sqlite"]) expect(result.stdout).toContain(name)
    expect(result.stdout).toContain("ADP-001")
    expect(result.stdout).toContain("independentConnections")
    const json = JSON.parse((await runCli(["list", "--json"])).stdout) as { subjects: Array<{ subject: string; requirements: Array<{ id: string; properties: string[] }> }> }
    const adapter = json.subjects.find((subject) => subject.subject === "adapter")!
    expect(adapter.requirements.length).toBeGreaterThanOrEqual(12)
    for (const requirement of adapter.requirements) expect(requirement.properties.length).toBeGreaterThan(0)
  })
})

describe("durable-conformance run", () => {
  it("runs the adapter contract on sqlite, writes every report format and exits 0", async () => {
    const result = await runCli(["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "5", "--out", "out", "--quiet"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    for (const file of ["report.json", "report.md", "report.html", "junit.xml"]) expect(existsSync(join(result.cwd, "out", file))).toBe(true)
    const report = readReport(readFileSync(join(result.cwd, "out", "report.json"), "utf8"))
    expect(report.options).toMatchObject({ adapters: ["sqlite"], runs: 5, subjects: ["adapter"] })
    expect(report.summary.fail).toBe(0)
    expect(report.summary.pass).toBeGreaterThan(10)
    expect(result.stdout).toMatch(/\d+ pass, 0 fail/)
  })

  it("prints progress per property unless --quiet", async () => {
    const result = await runCli(["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "5", "--out", "out"])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("adapter sqlite (1/1)")
    expect(result.stderr).toMatch(/adapter\/transactions x sqlite: pass \(5\/5 runs/)
  })

  it("produces byte-identical reports for the same seed, apart from wall-clock fields", async () => {
    const strip = (text: string) => text.replace(/"(startedAt|finishedAt|durationMs)": ("[^"]*"|\d+)/g, "")
    const a = await runCli(["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "4", "--seed", "5", "--out", "out", "--quiet"])
    const b = await runCli(["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "4", "--seed", "5", "--out", "out", "--quiet"])
    expect(strip(readFileSync(join(a.cwd, "out", "report.json"), "utf8"))).toBe(strip(readFileSync(join(b.cwd, "out", "report.json"), "utf8")))
  })

  it("runs a vendor module given by path", async () => {
    const result = await runCli(["run", "--adapter", join(fixtures, "vendor-sqlite.ts"), "--subject", "adapter", "--runs", "20", "--out", "out", "--quiet"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("vendor-sqlite")
  })

  const usageCases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["an unknown adapter", ["run", "--adapter", "oracle"], "unknown adapter \"oracle\""],
    ["a missing adapter module", ["run", "--adapter", "./nope.ts"], "does not exist"],
    ["a module that does not export an adapter", ["run", "--adapter", join(fixtures, "not-an-adapter.ts")], "does not export an adapter"],
    ["a module that throws on load", ["run", "--adapter", join(fixtures, "throws-on-load.ts")], "vendor module exploded"],
    ["zero runs", ["run", "--runs", "0"], "--runs must be an integer"],
    ["a non-numeric seed", ["run", "--seed", "abc"], "--seed must be an integer"],
    ["an unknown option", ["run", "--frobnicate"], "unknown option --frobnicate"],
    ["an unknown subject", ["run", "--adapter", "sqlite", "--subject", "weather"], "unknown subject"],
    ["an unknown command", ["explode"], "unknown command"],
    ["a corrupt replay token", ["replay", "dc1.garbage.00000000"], "corrupt"],
    ["certify with a runs override", ["certify", "--adapter", "sqlite", "--runs", "3"], "certify refuses --runs"],
    ["certify with a subject filter", ["certify", "--adapter", "sqlite", "--subject", "alarms"], "certify refuses --subject"]
  ]
  for (const [name, argv, message] of usageCases) {
    it(`rejects ${name} with one line and exit 2`, async () => {
      const result = await runCli(argv)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
      expect(oneLine(result.stderr)).toBe(true)
      expect(result.stderr).toContain(" — ")
    })
  }
})

describe("durable-conformance replay and verify-certificate", () => {
  it("replays a failure found with --implementation from the report, step by step, with --bind", async () => {
    const knownBad = resolve(root, "test/examples/fixtures/known-bad-alarms.ts")
    const run = await runCli(["run", "--implementation", knownBad, "--adapter", "sqlite", "--subject", "alarms", "--out", "out", "--quiet"])
    expect(run.code).toBe(1)
    // Every failed requirement is reported; replay the one the bug breaks (ALM-049, the repeat floor),
    // whose counterexample also changes the stored state.
    const failing = /FAIL (ALM-049) on sqlite/.exec(run.stdout)
    expect(failing).not.toBeNull()
    const unbound = await runCli(["replay", join(run.cwd, "out", "report.json")])
    expect(unbound.code).toBe(2)
    expect(unbound.stderr).toContain("pass --bind")
    const replay = await runCli(["replay", join(run.cwd, "out", "report.json"), "--requirement", failing![1]!, "--bind", knownBad, "--step"])
    expect(replay.code).toBe(1)
    expect(replay.stdout).toContain(`FAIL ${failing![1]} at step`)
    expect(replay.stdout).toContain("<== implementation and model diverge here")
    expect(replay.stdout).toMatch(/^ {2}! /m)
  })

  it("refuses a report without failures", async () => {
    const run = await runCli(["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "2", "--out", "out", "--quiet"])
    const result = await runCli(["replay", join(run.cwd, "out", "report.json")])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("no failure to replay")
  })

  it("refuses a corrupt certificate file", async () => {
    const run = await runCli(["help"])
    writeFileSync(join(run.cwd, "cert.json"), "{\"body\": 1}")
    const result = await runCli(["verify-certificate", "cert.json"], { cwd: run.cwd })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("INVALID (malformed)")
  })
})

describe("the installed command", () => {
  it("exits 2 with a one-line, redacted error for an unreachable DATABASE_URL", async () => {
    const exec = promisify(execFile)
    const error = await exec(process.execPath, ["--import", "tsx", join(root, "cli/main.ts"), "run", "--adapter", "postgres", "--runs", "1", "--quiet", "--out", join(scratchDir(), "out")], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: "postgres://alice:hunter2@127.0.0.1:1/nowhere" },
      timeout: 60_000
    }).then(() => undefined, (failure: { code: number; stderr: string }) => failure)
    expect(error?.code).toBe(2)
    expect(error?.stderr).toContain("cannot reach")
    expect(error?.stderr).not.toContain("hunter2")
    expect(oneLine(error?.stderr ?? "")).toBe(true)
  })
})
