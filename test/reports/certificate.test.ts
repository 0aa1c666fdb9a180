import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Certificate, CertificateBody } from "../../reports/certificate.ts"
import {
  CERTIFICATION_BUDGET,
  makeCertificate,
  renderCertificateHtml,
  renderCertificateJson,
  sealCertificate,
  verifyCertificate
} from "../../reports/certificate.ts"
import { canonicalJson } from "../../reports/canonical.ts"
import { computeSuiteHash, listSuiteFiles } from "../../reports/suiteHash.ts"
import { makeReport, REPLAY_TOKEN } from "./fixtures.ts"

const SUITE = { version: "0.1.0", hash: makeReport().suite.hash }

const certify = (overrides: Partial<Parameters<typeof makeCertificate>[0]> = {}): Certificate =>
  makeCertificate({
    report: { ...makeReport(), kind: "certify" },
    adapter: "postgres",
    kind: "adapter",
    budget: CERTIFICATION_BUDGET,
    seeds: [11, 22, 33],
    filtered: false,
    ...overrides
  })

/** What a vendor would hand over: the JSON file, parsed. */
const roundTrip = (certificate: Certificate): unknown => JSON.parse(renderCertificateJson(certificate))

const withBody = (certificate: Certificate, change: Partial<CertificateBody>): Certificate => ({
  ...certificate,
  body: { ...certificate.body, ...change }
})

describe("makeCertificate", () => {
  const certificate = certify()

  it("records suite, adapter, seeds, budget and every requirement with its verdict", () => {
    const { body } = certificate
    expect(body.suite).toEqual(makeReport().suite)
    expect(body.adapter.name).toBe("postgres")
    expect(body.seeds).toEqual([11, 22, 33])
    expect(body.budget).toEqual(CERTIFICATION_BUDGET)
    expect(body.filtered).toBe(false)
    expect(body.requirements.map((r) => [r.requirementId, r.verdict])).toEqual([
      ["ALM-001", "pass"],
      ["ALM-002", "fail"],
      ["ALM-003", "unknown"],
      ["ALM-004", "pass"],
      ["CNT-001", "error"]
    ])
    expect(body.requirements[1]?.counterexample).toMatchObject({ replayToken: REPLAY_TOKEN, stepIndex: 4, steps: 5, propertyId: "alarms/model" })
    expect(body.conformant).toBe(false)
  })

  it("records the missing capabilities of a not-applicable requirement", () => {
    const sqlite = certify({ adapter: "sqlite" })
    expect(sqlite.body.requirements.find((r) => r.requirementId === "ALM-004")).toMatchObject({
      verdict: "not-applicable",
      missingCapabilities: ["independentConnections", "rowLocks"]
    })
    expect(sqlite.body.conformant).toBe(true)
  })

  it("is not conformant when a named situation was never reached, even with every requirement held", () => {
    const report = makeReport()
    const withCoverage = (unreachedCount: number) => ({
      ...report,
      kind: "certify" as const,
      adapters: report.adapters.map((adapter) => ({
        ...adapter,
        coverage: [{ subject: "alarms" as const, scenarios: 600, situations: [{ situation: "replayDrop", scenarios: 12 }, { situation: "parkReportLost", scenarios: unreachedCount }] }]
      }))
    })
    const reached = certify({ adapter: "sqlite", report: withCoverage(3) })
    expect(reached.body.conformant).toBe(true)
    expect(reached.body.coverage).toEqual([{ subject: "alarms", situations: 2, reached: 2, unreached: [] }])
    const unreached = certify({ adapter: "sqlite", report: withCoverage(0) })
    expect(unreached.body.conformant).toBe(false)
    expect(unreached.body.coverage?.[0]?.unreached).toEqual(["parkReportLost"])
    expect(renderCertificateHtml(unreached)).toContain("Not conformant: some situations were never reached")
    const verified = verifyCertificate(roundTrip(unreached), SUITE)
    expect(verified.ok && verified.conformant).toBe(false)
    // A body edited to claim conformance fails its digest; resealed, the unreached list still decides.
    const forged = sealCertificate({ ...unreached.body, conformant: true })
    const forgedResult = verifyCertificate(roundTrip(forged), SUITE)
    expect(forgedResult.ok && forgedResult.conformant).toBe(false)
  })

  it("refuses to guess the adapter of a multi-adapter report", () => {
    expect(() => makeCertificate({ report: makeReport(), kind: "adapter", budget: CERTIFICATION_BUDGET, seeds: [1, 2, 3], filtered: false })).toThrow(
      /several adapters/
    )
  })

  it("renders JSON deterministically (sorted keys) and its digest survives re-indentation", () => {
    expect(renderCertificateJson(certify())).toBe(renderCertificateJson(certificate))
    const reindented = JSON.parse(JSON.stringify(roundTrip(certificate), null, 7)) as unknown
    expect(verifyCertificate(reindented, SUITE).ok).toBe(true)
    expect(canonicalJson({ b: 1, a: [true, null, "x"] })).toBe('{"a":[true,null,"x"],"b":1}')
  })
})

describe("verifyCertificate", () => {
  const certificate = certify()

  it("accepts an untouched certificate of this suite", () => {
    const result = verifyCertificate(roundTrip(certificate), SUITE)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.conformant).toBe(false)
    const passing = certify({ adapter: "sqlite" })
    const ok = verifyCertificate(roundTrip(passing), SUITE)
    expect(ok.ok && ok.conformant).toBe(true)
  })

  it("catches a tampered body (a fail edited into a pass)", () => {
    const tampered = roundTrip(certificate) as { body: { requirements: Array<{ verdict: string }>; conformant: boolean } }
    tampered.body.requirements[1]!.verdict = "pass"
    const result = verifyCertificate(tampered, SUITE)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.check).toBe("body-hash")
      expect(result.message).toMatch(/modified after it was issued/)
    }
  })

  it("catches another suite hash and another suite version", () => {
    const otherHash = verifyCertificate(roundTrip(certificate), { ...SUITE, hash: "0".repeat(64) })
    expect(otherHash.ok ? "ok" : otherHash.check).toBe("suite-hash")
    const otherVersion = verifyCertificate(roundTrip(certificate), { ...SUITE, version: "0.2.0" })
    expect(otherVersion.ok ? "ok" : otherVersion.check).toBe("suite-version")
    // Re-sealing a body from another suite does not help: the suite checks still fail.
    const resealed = sealCertificate({ ...certificate.body, suite: { ...certificate.body.suite, hash: "f".repeat(64) } })
    const result = verifyCertificate(roundTrip(resealed), SUITE)
    expect(result.ok ? "ok" : result.check).toBe("suite-hash")
  })

  it("refuses a filtered run even when it was sealed honestly", () => {
    const filtered = certify({ filtered: true })
    const result = verifyCertificate(roundTrip(filtered), SUITE)
    expect(result.ok ? "ok" : result.check).toBe("filtered")
    expect(renderCertificateHtml(filtered)).toContain("not a valid certificate")
  })

  it("refuses a shortened budget or too few seeds", () => {
    const shortened = certify({ budget: { ...CERTIFICATION_BUDGET, runsPerProperty: 5 } })
    expect(verifyCertificate(roundTrip(shortened), SUITE)).toMatchObject({ ok: false, check: "budget" })
    const fewerSeeds = sealCertificate({ ...certificate.body, seeds: [11] })
    expect(verifyCertificate(roundTrip(fewerSeeds), SUITE)).toMatchObject({ ok: false, check: "budget" })
    // A different fixed budget can be demanded explicitly.
    expect(verifyCertificate(roundTrip(shortened), { ...SUITE, budget: { runsPerProperty: 5, seedCount: 3 } }).ok).toBe(true)
  })

  it("refuses a certificate that leaves out requirements or subjects of the suite", () => {
    const catalog = [
      { id: "ALM-001", subject: "alarms" as const },
      { id: "ALM-002", subject: "alarms" as const },
      { id: "ALM-003", subject: "alarms" as const },
      { id: "ALM-004", subject: "alarms" as const },
      { id: "CNT-001", subject: "content" as const }
    ]
    expect(verifyCertificate(roundTrip(certificate), { ...SUITE, requirements: catalog }).ok).toBe(true)
    const dropped = sealCertificate({ ...certificate.body, requirements: certificate.body.requirements.filter((r) => r.requirementId !== "ALM-003") })
    const result = verifyCertificate(roundTrip(dropped), { ...SUITE, requirements: catalog })
    expect(result.ok ? "ok" : [result.check, result.message]).toEqual(["incomplete", expect.stringContaining("ALM-003")])
    const bigger = [...catalog, { id: "CRN-001", subject: "cron" as const }]
    const missingSubject = verifyCertificate(roundTrip(certificate), { ...SUITE, requirements: bigger })
    expect(missingSubject.ok ? "ok" : missingSubject.message).toMatch(/missing cron/)
  })

  it("reports every failed check, the first one as `check`", () => {
    const bad = withBody(certify({ filtered: true }), { harnessVersion: "9.9.9" })
    const result = verifyCertificate(roundTrip(bad), { version: "1.0.0", hash: "0".repeat(64) })
    expect(result.ok ? [] : result.problems.map((p) => p.check)).toEqual(["body-hash", "suite-version", "suite-hash", "filtered"])
  })

  it("says what is wrong with something that is not a certificate", () => {
    for (const value of [null, 42, {}, { body: {}, integrity: {} }, makeReport()]) {
      const result = verifyCertificate(value, SUITE)
      expect(result.ok ? "ok" : result.check).toBe("malformed")
      if (!result.ok) expect(result.message).toMatch(/not a durable-conformance certificate/)
    }
  })
})

describe("renderCertificateHtml", () => {
  it("is self-contained, escaped and shows every requirement with its verdict", () => {
    const html = renderCertificateHtml(certify())
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    expect(html).toContain(`npx durable-conformance replay ${REPLAY_TOKEN}`)
    for (const id of ["ALM-001", "ALM-002", "ALM-003", "ALM-004", "CNT-001"]) expect(html).toContain(`id="cert-${id}"`)
    expect(html).toContain(certify().integrity.bodySha256)
    const hostile = sealCertificate({ ...certify().body, implementation: { name: "<img src=x onerror=alert(1)>", version: "1" }, kind: "implementation" })
    const page = renderCertificateHtml(hostile)
    expect(page).not.toContain("<img")
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;")
  })
})

describe("computeSuiteHash", () => {
  const makeTree = (files: Readonly<Record<string, string>>): string => {
    const root = mkdtempSync(join(tmpdir(), "dc-suite-"))
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true })
      writeFileSync(join(root, path), content)
    }
    return root
  }
  const files = {
    "spec/alarms.ts": "export const a = 1\n",
    "models/alarms/model.ts": "export const m = 2\n",
    "properties/alarms.ts": "export const p = 3\n",
    "spec/README.md": "not hashed\n",
    "cli/main.ts": "not part of the suite\n"
  }

  it("is deterministic, hashes only the suite's .ts files, and ignores CRLF and creation order", () => {
    const a = makeTree(files)
    const b = makeTree(Object.fromEntries(Object.entries(files).reverse()))
    const c = makeTree({ ...files, "spec/alarms.ts": "export const a = 1\r\n", "spec/README.md": "changed", "cli/main.ts": "changed" })
    try {
      expect(listSuiteFiles(a)).toEqual(["models/alarms/model.ts", "properties/alarms.ts", "spec/alarms.ts"])
      const hash = computeSuiteHash(a)
      expect(hash).toMatch(/^[0-9a-f]{64}$/)
      expect(computeSuiteHash(a)).toBe(hash)
      expect(computeSuiteHash(b)).toBe(hash)
      expect(computeSuiteHash(c)).toBe(hash)
    } finally {
      for (const dir of [a, b, c]) rmSync(dir, { recursive: true, force: true })
    }
  })

  it("changes when a file's content or name changes, and refuses a folder without a suite", () => {
    const a = makeTree(files)
    const empty = makeTree({ "cli/main.ts": "x" })
    try {
      const before = computeSuiteHash(a)
      writeFileSync(join(a, "properties/alarms.ts"), "export const p = 4\n")
      const edited = computeSuiteHash(a)
      expect(edited).not.toBe(before)
      renameSync(join(a, "properties/alarms.ts"), join(a, "properties/alarms2.ts"))
      expect(computeSuiteHash(a)).not.toBe(edited)
      expect(() => computeSuiteHash(empty)).toThrow(/no \.ts files/)
    } finally {
      for (const dir of [a, empty]) rmSync(dir, { recursive: true, force: true })
    }
  })

  it("hashes this repository's suite", () => {
    expect(computeSuiteHash(process.cwd())).toMatch(/^[0-9a-f]{64}$/)
  })
})
