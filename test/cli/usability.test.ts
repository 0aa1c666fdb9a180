/**
 * The command line as a new user meets it (effect/cli): `--help` on every command, shell completions,
 * negative numbers, clear one-line errors, deduplicated adapters, and `list` naming the properties
 * that check each requirement.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { readReport } from "../../reports/json.ts"
import { runCli } from "./support.ts"

const COMMANDS = ["list", "run", "replay", "certify", "verify-certificate"] as const

const oneLine = (text: string) => text.trim().split("\n").length === 1

describe("--help", () => {
  for (const command of COMMANDS) {
    it(`durable-conformance ${command} --help prints the command's usage and exits 0`, async () => {
      const result = await runCli([command, "--help"])
      expect(result.stderr).toBe("")
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`durable-conformance ${command}`)
      expect(result.stdout).toContain("USAGE")
    })
  }

  it("documents the flags of run, and help <command> is <command> --help", async () => {
    const result = await runCli(["help", "run"])
    expect(result.code).toBe(0)
    for (const flag of ["--adapter", "--subject", "--implementation", "--runs", "--seed", "--out", "--time-limit", "--run-timeout", "--quiet", "--verbose"]) {
      expect(result.stdout).toContain(flag)
    }
  })

  it("lists every command at the top level, and -h is --help", async () => {
    const result = await runCli(["-h"])
    expect(result.code).toBe(0)
    for (const command of COMMANDS) expect(result.stdout).toContain(command)
  })

  it("hides the flags certify refuses", async () => {
    const result = await runCli(["certify", "--help"])
    const flags = result.stdout.slice(result.stdout.indexOf("FLAGS"), result.stdout.indexOf("GLOBAL FLAGS"))
    expect(flags).toContain("--adapter")
    expect(flags).not.toMatch(/--(runs|seed|subject|time-limit|requirement)\b/)
  })
})

describe("--completions and --version", () => {
  for (const shell of ["bash", "zsh", "fish"] as const) {
    it(`prints a ${shell} completion script with the commands and their flags`, async () => {
      const result = await runCli(["--completions", shell])
      expect(result.code).toBe(0)
      expect(result.stderr).toBe("")
      for (const word of ["verify-certificate", "certify", "--adapter", "--implementation", "--step"]) expect(result.stdout).toContain(word)
    })
  }

  it("prints the version", async () => {
    const result = await runCli(["--version"])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^durable-conformance \d+\.\d+\.\d+/)
  })
})

describe("negative numbers", () => {
  for (const argv of [["--seed", "-1"], ["--seed=-1"]]) {
    it(`accepts ${argv.join(" ")}`, async () => {
      const result = await runCli(["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "5", ...argv, "--out", "out", "--quiet"])
      expect(result.stderr).toBe("")
      expect(result.code).toBe(0)
      expect(readReport(readFileSync(join(result.cwd, "out", "report.json"), "utf8")).options.seed).toBe(-1)
    })
  }

  const rejected: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["--runs", "-3"], "--runs must be an integer from 1 to"],
    [["--runs", "2.5"], "--runs must be an integer from 1 to"],
    [["--seed", "4294967296"], "--seed must be an integer from -2147483648 to 2147483647"],
    [["--time-limit", "-1"], "--time-limit must be an integer from 1 to"],
    [["--runs"], "--runs needs a value"]
  ]
  for (const [argv, message] of rejected) {
    it(`rejects run ${argv.join(" ")} with one clear line and exit 2`, async () => {
      const result = await runCli(["run", ...argv])
      expect(result.code).toBe(2)
      expect(oneLine(result.stderr)).toBe(true)
      expect(result.stderr).toContain(message)
      expect(result.stderr).toContain(" — ")
      expect(result.stderr).not.toContain("ambiguous")
    })
  }
})

describe("usage errors stay one line with a hint", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["a flag given twice", ["run", "--adapter", "sqlite", "--adapter", "pglite"], "--adapter is given 2 times"],
    ["replay without a token", ["replay"], "replay needs <token>"],
    ["replay with two tokens", ["replay", "a", "b"], "replay does not take \"b\""],
    ["an unknown option of list", ["list", "--frobnicate"], "unknown option --frobnicate for list"],
    ["certify without an adapter", ["certify"], "certify needs --adapter or --implementation"],
    ["certify with a seed override", ["certify", "--adapter", "sqlite", "--seed", "-4"], "certify refuses --seed"],
    ["certify with a refused flag and no value", ["certify", "--adapter", "sqlite", "--runs"], "certify refuses --runs"],
    ["a misspelt flag", ["run", "--adapters", "sqlite"], "did you mean --adapter?"]
  ]
  for (const [name, argv, message] of cases) {
    it(`rejects ${name}`, async () => {
      const result = await runCli(argv)
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(oneLine(result.stderr)).toBe(true)
      expect(result.stderr).toContain(message)
      expect(result.stderr).toContain(" — ")
    })
  }

  it("prints the overview and exits 2 when no command is given", async () => {
    const result = await runCli([])
    expect(result.code).toBe(2)
    expect(result.stdout).toContain("verify-certificate")
  })
})

describe("--adapter deduplication", () => {
  it("runs an adapter named twice once", async () => {
    const result = await runCli(["run", "--adapter", "sqlite,sqlite", "--subject", "adapter,adapter", "--runs", "5", "--out", "out"])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("adapter sqlite (1/1)")
    const report = readReport(readFileSync(join(result.cwd, "out", "report.json"), "utf8"))
    expect(report.options.adapters).toEqual(["sqlite"])
    expect(report.adapters).toHaveLength(1)
    const propertyIds = report.adapters[0]!.properties.map((run) => run.propertyId)
    expect(new Set(propertyIds).size).toBe(propertyIds.length)
    expect(result.stdout.match(/^sqlite /gm)).toHaveLength(1)
  })
})

describe("list", () => {
  it("names the properties that check each requirement", async () => {
    const result = await runCli(["list"])
    expect(result.code).toBe(0)
    const lines = result.stdout.split("\n")
    const requirementLines = lines.map((line, index) => [line, index] as const).filter(([line]) => /^ {2}(ADP|ALM)-\d{3} /.test(line))
    expect(requirementLines.length).toBeGreaterThanOrEqual(63)
    for (const [, index] of requirementLines) expect(lines[index + 1]).toMatch(/^ +checked by [a-z]+\/[a-z-]+/)
    expect(result.stdout).toMatch(/ADP-001 .*\n +checked by adapter\/transactions/)
  })
})
