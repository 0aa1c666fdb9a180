/**
 * `--implementation` binds a third-party alarms implementation: the worked example
 * (examples/third-party-alarms) passes the alarms suite through `run`, a known-bad binding fails it
 * (so the binding really replaces the shipped scheduler), and bad modules or options are one-line
 * usage errors (exit 2).
 */
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { decodeReplayToken } from "../../harness/ReplayToken.ts"
import type { Certificate } from "../../reports/certificate.ts"
import { readReport } from "../../reports/json.ts"
import { runCli } from "../cli/support.ts"

const root = resolve(import.meta.dirname, "../..")
const fixtures = resolve(import.meta.dirname, "fixtures")
const example = join(root, "examples/third-party-alarms/index.ts")

const oneLine = (text: string) => text.trim().split("\n").length === 1

describe("run --implementation", () => {
  it("runs the alarms suite on the third-party example at the gate's budget and it passes", async () => {
    // The gate's budget: at 20 runs the swarm scenarios leave a requirement unreached (unknown, exit 1).
    const result = await runCli(["run", "--implementation", example, "--adapter", "sqlite", "--subject", "alarms", "--runs", "60", "--out", "out", "--quiet"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const report = readReport(readFileSync(join(result.cwd, "out", "report.json"), "utf8"))
    expect(report.summary.fail).toBe(0)
    expect(report.summary.pass).toBeGreaterThan(20)
  }, 180_000)

  it("fails alarms requirements when the bound implementation is known-bad, with replay tokens naming it", async () => {
    const result = await runCli(["run", "--implementation", join(fixtures, "known-bad-alarms.ts"), "--adapter", "sqlite", "--subject", "alarms", "--runs", "100", "--out", "out", "--quiet"])
    expect(result.code).toBe(1)
    const report = readReport(readFileSync(join(result.cwd, "out", "report.json"), "utf8"))
    const failed = report.adapters[0]!.requirements.filter((requirement) => requirement.verdict === "fail")
    expect(failed.length).toBeGreaterThan(0)
    for (const requirement of failed) {
      expect(requirement.subject).toBe("alarms")
      expect(requirement.counterexample?.replayToken.length).toBeGreaterThan(0)
      const payload = Effect.runSync(decodeReplayToken(requirement.counterexample!.replayToken))
      expect(payload.implementation).toBe("known-bad/h2-any-repeat")
    }
  }, 60_000)

  it("bundles the bound implementation into the do-sqlite worker, so it runs inside the Durable Object", async () => {
    const result = await runCli(["run", "--implementation", join(fixtures, "known-bad-alarms.ts"), "--adapter", "do-sqlite", "--subject", "alarms", "--runs", "100", "--out", "out", "--quiet"])
    expect(result.code).toBe(1)
    const report = readReport(readFileSync(join(result.cwd, "out", "report.json"), "utf8"))
    expect(report.adapters[0]!.fingerprint.name).toBe("do-sqlite")
    const failed = report.adapters[0]!.requirements.filter((requirement) => requirement.verdict === "fail").map((requirement) => requirement.requirementId)
    expect(failed).toContain("ALM-049")
    expect(report.summary.error).toBe(0)
  }, 120_000)

  it("refuses a module that exports no implementation, in one line, exit 2", async () => {
    const result = await runCli(["run", "--implementation", join(fixtures, "not-an-implementation.ts"), "--adapter", "sqlite", "--subject", "alarms", "--runs", "1"])
    expect(result.code).toBe(2)
    expect(oneLine(result.stderr)).toBe(true)
    expect(result.stderr).toContain("does not export an implementation")
  })

  it("refuses a binding for a subject that takes no third-party implementation, and a missing module", async () => {
    const wrong = await runCli(["run", "--implementation", join(fixtures, "wrong-subject.ts"), "--adapter", "sqlite", "--runs", "1"])
    expect(wrong.code).toBe(2)
    expect(oneLine(wrong.stderr)).toBe(true)
    expect(wrong.stderr).toContain("cannot take a third-party implementation")
    const missing = await runCli(["run", "--implementation", join(fixtures, "no-such-module.ts"), "--adapter", "sqlite", "--runs", "1"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("does not exist")
  })

  it("refuses --implementation when --subject leaves its subject out", async () => {
    const result = await runCli(["run", "--implementation", example, "--adapter", "sqlite", "--subject", "adapter", "--runs", "1"])
    expect(result.code).toBe(2)
    expect(oneLine(result.stderr)).toBe(true)
    expect(result.stderr).toContain("--subject leaves out")
  })
})

describe("certify --implementation", () => {
  it("refuses filters and budget overrides, and modules without an implementation", async () => {
    for (const refused of [["--subject", "alarms"], ["--runs", "5"], ["--seed", "3"]]) {
      const result = await runCli(["certify", "--implementation", example, ...refused])
      expect(result.code, refused.join(" ")).toBe(2)
      expect(result.stderr).toContain(`certify refuses ${refused[0]}`)
    }
    const bad = await runCli(["certify", "--implementation", join(fixtures, "not-an-implementation.ts")])
    expect(bad.code).toBe(2)
    expect(oneLine(bad.stderr)).toBe(true)
    expect(bad.stderr).toContain("does not export an implementation")
  })

  // A third full-budget certify (1-2 minutes on sqlite): it is the only test of implementation
  // certificates, so it always runs.
  it("writes an implementation certificate naming the bound implementation (a known-bad one: NOT conformant)", async () => {
    const result = await runCli(["certify", "--implementation", join(fixtures, "known-bad-alarms.ts"), "--out", "cert", "--quiet"])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("certificate: NOT conformant")
    const folder = join(result.cwd, "cert")
    expect(existsSync(join(folder, "certificate.html"))).toBe(true)
    const certificate = JSON.parse(readFileSync(join(folder, "certificate.json"), "utf8")) as Certificate
    expect(certificate.body).toMatchObject({
      kind: "implementation",
      implementation: { name: "known-bad/h2-any-repeat", version: "0.0.0-known-bad" },
      subjects: ["adapter", "alarms"],
      filtered: false,
      conformant: false
    })
    expect(certificate.body.adapter.name).toBe("sqlite")
    const failed = certificate.body.requirements.filter((requirement) => requirement.verdict === "fail")
    expect(failed.length).toBeGreaterThan(0)
    for (const requirement of failed) expect(requirement.subject).toBe("alarms")
    const verified = await runCli(["verify-certificate", join(folder, "certificate.json")])
    expect(verified.code).toBe(0)
    expect(verified.stdout).toMatch(/^certificate valid: implementation known-bad\/h2-any-repeat 0\.0\.0-known-bad on sqlite .*: NOT conformant\n$/)
  }, 300_000)
})
