/**
 * `run --shard k/n` + `merge-reports`, and `run --workers N`: the merged report is byte-identical,
 * apart from wall-clock fields, to the unsharded run with the same seed and budget, for a failing
 * subject (a known-bad alarms scheduler: counterexamples are picked across shards) and a passing one;
 * every way a shard set can be wrong is refused with one line saying what to do, and nothing is written.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import type { ConformanceReport } from "../../harness/RunResult.ts"
import { runCli } from "./support.ts"

const root = resolve(import.meta.dirname, "../..")
const knownBad = resolve(root, "test/examples/fixtures/known-bad-alarms.ts")
const SHARDS = 4

/** Wall-clock fields blanked: JSON times and durations, JUnit/HTML times. */
const withoutWallClock = (text: string): string =>
  text
    .replace(/"(startedAt|finishedAt|durationMs)": ("[^"]*"|[\d.]+)/g, "\"$1\": 0")
    .replace(/\b(time|timestamp)="[^"]*"/g, "$1=\"\"")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME")
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "DURATION")

const read = (dir: string, file: string): string => readFileSync(join(dir, file), "utf8")

interface ShardedRun {
  readonly unsharded: { readonly code: number; readonly stdout: string; readonly dir: string }
  readonly shardDirs: ReadonlyArray<string>
  readonly merged: { readonly code: number; readonly stdout: string; readonly dir: string }
}

/** Runs `args` unsharded and as `SHARDS` shards in one folder, then merges the shards. */
const runSharded = async (args: ReadonlyArray<string>): Promise<ShardedRun> => {
  const first = await runCli(["run", ...args, "--out", "full", "--quiet"])
  const cwd = first.cwd
  const shardDirs: Array<string> = []
  for (let index = 1; index <= SHARDS; index++) {
    const shard = await runCli(["run", ...args, "--shard", `${index}/${SHARDS}`, "--out", `shard-${index}`, "--quiet"], { cwd })
    expect(shard.code, shard.stderr).not.toBe(2)
    shardDirs.push(join(cwd, `shard-${index}`))
  }
  const merged = await runCli(["merge-reports", "--out", "merged", "--quiet", ...[3, 1, 4, 2].map((index) => `shard-${index}/report.json`)], { cwd })
  return { unsharded: { code: first.code, stdout: first.stdout, dir: join(cwd, "full") }, shardDirs, merged: { code: merged.code, stdout: merged.stdout, dir: join(cwd, "merged") } }
}

const expectSameReports = (run: ShardedRun): void => {
  expect(run.merged.code).toBe(run.unsharded.code)
  expect(run.merged.stdout).toBe(run.unsharded.stdout)
  expect(withoutWallClock(read(run.merged.dir, "report.json"))).toBe(withoutWallClock(read(run.unsharded.dir, "report.json")))
  for (const file of ["report.md", "junit.xml", "report.html"]) {
    expect(withoutWallClock(read(run.merged.dir, file)), file).toBe(withoutWallClock(read(run.unsharded.dir, file)))
  }
}

describe("run --shard k/n and merge-reports", () => {
  let failing: ShardedRun
  beforeAll(async () => {
    failing = await runSharded(["--implementation", knownBad, "--adapter", "sqlite", "--subject", "alarms", "--runs", "20"])
  }, 120_000)

  it("merges 4 shards of a failing run into the unsharded report, counterexamples picked across shards", () => {
    expect(failing.unsharded.code).toBe(1)
    expectSameReports(failing)
    const merged = JSON.parse(read(failing.merged.dir, "report.json")) as ConformanceReport
    expect(merged.shard).toBeUndefined()
    expect(read(failing.merged.dir, "report.json")).not.toContain("shardFacts")
    const counterexamples = merged.adapters[0]!.properties.flatMap((run) => (run.verdict === "fail" ? run.counterexamples : []))
    expect(counterexamples.length).toBeGreaterThan(0)
    // Each counterexample is the one its owning shard (the one executing its first failing scenario) minimized.
    const shards = failing.shardDirs.map((dir) => JSON.parse(read(dir, "report.json")) as ConformanceReport)
    for (const cx of counterexamples) {
      const owner = shards[(cx.runsToDetect - 1) % SHARDS]!.adapters[0]!.properties.find((run) => run.propertyId === cx.propertyId)
      expect(owner?.verdict === "fail" ? owner.counterexamples.map((mine) => mine.replayToken) : []).toContain(cx.replayToken)
    }
  })

  it("merges 4 shards of a passing run into the unsharded report", async () => {
    const passing = await runSharded(["--adapter", "sqlite", "--subject", "adapter", "--runs", "9", "--seed", "3"])
    expect(passing.unsharded.code).toBe(0)
    expectSameReports(passing)
    // A shard report is a report of its share: 9 runs over 4 shards is 3, 2, 2, 2.
    const shares = passing.shardDirs.map((dir) => (JSON.parse(read(dir, "report.json")) as ConformanceReport).adapters[0]!.properties[0]!.runsRequested)
    expect(shares).toEqual([3, 2, 2, 2])
  })

  it("refuses a missing, duplicate, foreign or edited shard with one line, writing nothing", async () => {
    const cwd = join(failing.shardDirs[0]!, "..")
    const shards = [1, 2, 3, 4].map((index) => `shard-${index}/report.json`)
    const refused = async (files: ReadonlyArray<string>, message: string) => {
      const out = `refused-${Math.random().toString(36).slice(2)}`
      const result = await runCli(["merge-reports", "--out", out, ...files], { cwd })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
      expect(result.stderr.trim().split("\n")).toHaveLength(1)
      expect(result.stderr).toContain(" — ")
      expect(existsSync(join(cwd, out, "report.json"))).toBe(false)
    }
    await refused(shards.slice(0, 3), "shard 4/4 is missing")
    await refused([...shards, shards[1]!], "shard 2/4 is given twice")
    await refused([...shards.slice(0, 3), "full/report.json"], "full/report.json cannot be merged: it has no shard section")
    const edited = JSON.parse(read(cwd, shards[2]!)) as { adapters: Array<{ properties: Array<{ runsExecuted: number }> }> }
    edited.adapters[0]!.properties[0]!.runsExecuted += 1
    writeFileSync(join(cwd, "edited.json"), JSON.stringify(edited, null, 2))
    await refused([shards[0]!, shards[1]!, "edited.json", shards[3]!], "edited.json cannot be merged: its digest does not match")
    writeFileSync(join(cwd, "truncated.json"), read(cwd, shards[2]!).slice(0, 500))
    await refused([shards[0]!, shards[1]!, "truncated.json", shards[3]!], "cannot read truncated.json: not a durable-conformance report")
    const otherSeed = await runCli(["run", "--implementation", knownBad, "--adapter", "sqlite", "--subject", "alarms", "--runs", "20", "--seed", "8", "--shard", "4/4", "--out", "seed-8", "--quiet"], { cwd })
    expect(otherSeed.code).not.toBe(2)
    await refused([...shards.slice(0, 3), "seed-8/report.json"], "differ in the options")
  })
})

describe("run --shard and --workers usage", () => {
  const usage: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["--shard", "5/4"], "--shard must be K/N with 1 <= K <= N <= 1000, got \"5/4\""],
    [["--shard", "0/4"], "--shard must be K/N"],
    [["--shard", "two"], "--shard must be K/N"],
    [["--workers", "9"], "--workers must be an integer from 1 to 8, got \"9\""],
    [["--workers", "0"], "--workers must be an integer from 1 to 8"],
    [["--workers", "2", "--shard", "1/2"], "--workers and --shard cannot be combined"]
  ]
  for (const [flags, message] of usage) {
    it(`refuses ${flags.join(" ")}`, async () => {
      const result = await runCli(["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "2", ...flags, "--out", "out"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
      expect(result.stderr.trim().split("\n")).toHaveLength(1)
    })
  }

  it("run --workers 2 writes the report of --workers 1, with each worker's progress prefixed", async () => {
    const args = ["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "6", "--seed", "11"]
    const one = await runCli([...args, "--quiet", "--out", "one"])
    const two = await runCli([...args, "--workers", "2", "--out", "two"], { cwd: one.cwd, env: process.env })
    const progressLines = two.stderr.trim().split("\n")
    expect(progressLines[0]).toBe("durable-conformance: 2 workers started (run --shard k/2 each)")
    for (const shard of ["1/2", "2/2"]) {
      const finished = progressLines.filter((line) => line.startsWith(`[worker ${shard}]   adapter/`) && line.includes(" x sqlite: pass ("))
      expect(finished.length, shard).toBeGreaterThan(0)
    }
    expect(progressLines.slice(1).every((line) => /^\[worker [12]\/2\] /.test(line))).toBe(true)
    const quiet = await runCli([...args, "--quiet", "--workers", "2", "--out", "quiet"], { cwd: one.cwd, env: process.env })
    expect(quiet.stderr).toBe("")
    expect(two.code).toBe(one.code)
    expect(withoutWallClock(read(join(one.cwd, "two"), "report.json"))).toBe(withoutWallClock(read(join(one.cwd, "one"), "report.json")))
  }, 120_000)
})
