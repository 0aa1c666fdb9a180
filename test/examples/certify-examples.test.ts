/**
 * End to end through the in-process CLI: certifying the worked vendor adapter (examples/sqljs-adapter)
 * gives a valid, conformant certificate; certifying the deliberately broken one
 * (examples/nonconforming-adapter) gives a valid certificate that is NOT conformant and lists the
 * failing requirements with replay tokens; filtered runs never yield a certificate that verifies.
 *
 * These run `certify` at the fixed certification budget (CERTIFICATION_BUDGET) over every subject, once
 * per example: the conformant one is the slowest test of the suite (many minutes on 2 cores, see
 * examples/README.md), hence the long timeouts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { type Certificate, sealCertificate } from "../../reports/certificate.ts"
import { suites } from "../../properties/registry.ts"
import { runCli } from "../cli/support.ts"

const root = resolve(import.meta.dirname, "../..")
const sqljs = join(root, "examples/sqljs-adapter/index.ts")
const nonconforming = join(root, "examples/nonconforming-adapter/index.ts")

const readCertificate = (folder: string): Certificate => JSON.parse(readFileSync(join(folder, "certificate.json"), "utf8")) as Certificate

describe("certify the example adapters", () => {
  it("refuses a filtered certification", async () => {
    const result = await runCli(["certify", "--adapter", sqljs, "--subject", "alarms"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("certify refuses --subject")
  })

  it("certifies the sql.js adapter as conformant, and a filtered copy of its certificate does not verify", async () => {
    const result = await runCli(["certify", "--adapter", sqljs, "--out", "cert", "--quiet"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("certificate: conformant")
    const folder = join(result.cwd, "cert")
    for (const file of ["certificate.json", "certificate.html", "report.json"]) expect(existsSync(join(folder, file)), file).toBe(true)
    const certificate = readCertificate(folder)
    expect(certificate.body).toMatchObject({ kind: "adapter", conformant: true, filtered: false, subjects: suites.map((suite) => suite.subject) })
    expect(certificate.body.adapter).toMatchObject({ name: "sqljs", engine: "sqlite (sql.js)", adapterVersion: "sql.js 1.17.0" })
    expect(certificate.body.requirements.filter((requirement) => requirement.verdict === "fail")).toEqual([])
    expect(readFileSync(join(folder, "certificate.html"), "utf8")).toContain("sqljs")

    const verified = await runCli(["verify-certificate", join(folder, "certificate.json")])
    expect(verified.code).toBe(0)
    expect(verified.stdout).toMatch(/^certificate valid: sqljs .*: conformant\n$/)

    // Someone marks the body filtered and re-seals it (the digest then matches): it still must not verify.
    const filtered = join(folder, "filtered.json")
    writeFileSync(filtered, JSON.stringify(sealCertificate({ ...certificate.body, filtered: true })))
    const refused = await runCli(["verify-certificate", filtered])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toContain("certificate INVALID (filtered)")
  }, 2_400_000)

  it("certifies the non-conforming adapter as NOT conformant, listing failures with replay tokens", async () => {
    const result = await runCli(["certify", "--adapter", nonconforming, "--out", "cert", "--quiet"])
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("certificate: NOT conformant")
    const folder = join(result.cwd, "cert")
    const certificate = readCertificate(folder)
    expect(certificate.body.conformant).toBe(false)
    const failed = certificate.body.requirements.filter((requirement) => requirement.verdict === "fail")
    const failedIds = failed.map((requirement) => requirement.requirementId)
    for (const id of ["ADP-001", "ADP-004", "ADP-013"]) expect(failedIds).toContain(id)
    for (const requirement of failed) {
      expect(requirement.counterexample?.replayToken, requirement.requirementId).toMatch(/^dc1\./)
      expect(requirement.counterexample?.explanation.length, requirement.requirementId).toBeGreaterThan(0)
    }
    const html = readFileSync(join(folder, "certificate.html"), "utf8")
    expect(html).toContain("ADP-001")
    expect(html).toContain("durable-conformance replay dc1.")
    // The certificate's replay commands name the adapter module, and work as printed.
    const printed = /<code>npx durable-conformance (replay dc1\.[^<]*)<\/code>/.exec(html)?.[1]
    expect(printed).toContain(` --adapter ${nonconforming}`)
    const replay = await runCli(printed!.split(" "), { cwd: result.cwd })
    expect(replay.code).toBe(1)
    expect(replay.stdout).toMatch(/^FAIL ADP-\d{3} at step \d+/m)

    const verified = await runCli(["verify-certificate", join(folder, "certificate.json")])
    expect(verified.code).toBe(0)
    expect(verified.stdout).toMatch(/^certificate valid: sqljs-int32-no-rollback .*: NOT conformant\n$/)
  }, 1_800_000)
})
