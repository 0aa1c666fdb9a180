/**
 * The conformance certificate: what `durable-conformance certify` hands to a vendor (JSON, plus an
 * HTML rendering for humans) and what `verify-certificate` checks against the installed suite.
 *
 * A certificate pins exactly what was certified and how: the suite (name, version, content hash),
 * the harness version, the adapter fingerprint, the seeds and the fixed budget, and every requirement
 * with its verdict: pass, fail (with the counterexample's replay token), not-applicable (with the
 * missing capabilities) or unknown (budget exhausted). `filtered: false` records that no requirement
 * or property was left out.
 *
 * `integrity.bodySha256` is a SHA-256 over the canonical JSON of `body`, so any edit of the body is
 * detected. It is an integrity check, not a signature: whoever can rewrite the file can recompute it.
 * For authenticity, sign the file with the vendor's own means (e.g. a detached signature).
 */
import { type SubjectCoverage, unreachedSituations } from "../harness/Coverage.ts"
import { Ajv2020 } from "ajv/dist/2020.js"
import type { AdapterFingerprint, CapabilityName } from "../adapters/contract.ts"
import type { ConformanceReport, RequirementResult, Verdict, VerdictCounts } from "../harness/RunResult.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import { canonicalJson, canonicalSha256 } from "./canonical.ts"
import { escapeHtml as esc } from "./escape.ts"
import { redactSecrets } from "./redact.ts"
import certificateSchema from "./schema/certificate-v1.schema.json" with { type: "json" }
import reportSchema from "./schema/report-v2.schema.json" with { type: "json" }
import { countVerdicts, overallStatus, replayCommand, VERDICT_LABEL, VERDICTS } from "./text.ts"

/** The certificate format version this module writes and verifies. */
export const CERTIFICATE_FORMAT_VERSION = 1 as const

/** The fixed effort of a certification run. A certificate is only valid at exactly this budget. */
export interface CertificationBudget {
  /** Generated scenarios per property and seed. */
  readonly runsPerProperty: number
  /** How many seeds each property runs with (each a full `runsPerProperty`). */
  readonly seedCount: number
}

/**
 * The budget `certify` uses and `verifyCertificate` demands unless told otherwise. The CLI's certify
 * command must use this constant (not a user option) so certificates are comparable.
 */
export const CERTIFICATION_BUDGET: CertificationBudget = { runsPerProperty: 200, seedCount: 3 }

/** A failure's counterexample, summarized: the full steps live in the run's JSON report. */
export interface CertifiedCounterexample {
  readonly propertyId: string
  /** The one-sentence explanation of the divergence. */
  readonly explanation: string
  readonly stepIndex: number
  /** Number of steps of the minimized counterexample. */
  readonly steps: number
  readonly replayToken: string
  readonly seed: number
}

/** One requirement's verdict on the certified adapter or implementation. */
export interface CertifiedRequirement {
  readonly requirementId: string
  readonly subject: SubjectName
  readonly title: string
  readonly verdict: Verdict
  readonly reason: string
  readonly coveredRuns: number
  /** For not-applicable: the capabilities the adapter lacks. */
  readonly missingCapabilities?: ReadonlyArray<CapabilityName>
  /** For fail: the counterexample. */
  readonly counterexample?: CertifiedCounterexample
}

/** Everything the integrity digest covers. */
export interface CertificateBody {
  readonly format: "durable-conformance-certificate"
  readonly formatVersion: typeof CERTIFICATE_FORMAT_VERSION
  /** `adapter`: a storage adapter against every subject; `implementation`: one subject's implementation. */
  readonly kind: "adapter" | "implementation"
  readonly subjects: ReadonlyArray<SubjectName>
  /** For `implementation` certificates: which implementation was bound. */
  readonly implementation?: { readonly name: string; readonly version: string }
  readonly suite: { readonly name: string; readonly version: string; readonly hash: string }
  readonly harnessVersion: string
  readonly adapter: AdapterFingerprint
  readonly seeds: ReadonlyArray<number>
  readonly budget: CertificationBudget
  /** True when any requirement, property or subject was filtered out; such a certificate never verifies. */
  readonly filtered: boolean
  /** Wall-clock time the certificate was issued (ISO 8601). */
  readonly issuedAt: string
  readonly environment: ConformanceReport["environment"]
  readonly requirements: ReadonlyArray<CertifiedRequirement>
  readonly summary: VerdictCounts
  /**
   * Situation coverage per subject that names situations, over every seed (absent in certificates of
   * suites without situations). A certificate is conformant only when every named situation was
   * reached: a pass over scenarios that never exercised a situation certifies nothing about it.
   */
  readonly coverage?: ReadonlyArray<CertifiedCoverage>
  /** True when every requirement passed or was not applicable, and every named situation was reached. */
  readonly conformant: boolean
}

/** One subject's situation coverage in a certificate. */
export interface CertifiedCoverage {
  readonly subject: string
  /** Situations the subject's model names. */
  readonly situations: number
  /** How many of them some certification scenario reached. */
  readonly reached: number
  /** The ones no scenario reached. */
  readonly unreached: ReadonlyArray<string>
}

const certifiedCoverage = (coverage: SubjectCoverage): CertifiedCoverage => {
  const unreached = unreachedSituations(coverage)
  return { subject: coverage.subject, situations: coverage.situations.length, reached: coverage.situations.length - unreached.length, unreached }
}

/** A certificate: the body and its integrity digest. */
export interface Certificate {
  readonly body: CertificateBody
  readonly integrity: {
    readonly algorithm: "sha256"
    readonly canonicalization: "json-sorted-keys"
    /** Lower-case hex SHA-256 of `canonicalJson(body)`. */
    readonly bodySha256: string
  }
}

/** Seals a body: computes its integrity digest. */
export const sealCertificate = (body: CertificateBody): Certificate => ({
  body,
  integrity: { algorithm: "sha256", canonicalization: "json-sorted-keys", bodySha256: canonicalSha256(body) }
})

/** What `makeCertificate` needs beyond the certify run's report. */
export interface CertificateInput {
  /** The report of a `certify` run. */
  readonly report: ConformanceReport
  /** Which of the report's adapters the certificate is for (default: the only one). */
  readonly adapter?: string
  readonly kind: "adapter" | "implementation"
  readonly implementation?: { readonly name: string; readonly version: string }
  readonly budget: CertificationBudget
  /** The seeds every property ran with. */
  readonly seeds: ReadonlyArray<number>
  /** Whether the run left anything out (`certify` refuses filters, so this is false for real runs). */
  readonly filtered: boolean
  /** Defaults to the report's `finishedAt`. */
  readonly issuedAt?: string
}

const certifiedRequirement = (r: RequirementResult): CertifiedRequirement => {
  const cx = r.counterexample
  return {
    requirementId: r.requirementId,
    subject: r.subject,
    title: r.title,
    verdict: r.verdict,
    reason: r.reason,
    coveredRuns: r.coveredRuns,
    ...(r.missingCapabilities === undefined ? {} : { missingCapabilities: r.missingCapabilities }),
    ...(cx === undefined
      ? {}
      : {
          counterexample: {
            propertyId: cx.propertyId,
            explanation: cx.divergence.explanation,
            stepIndex: cx.divergence.stepIndex,
            steps: cx.trace.steps.length,
            replayToken: cx.replayToken,
            seed: cx.seed
          }
        })
  }
}

/**
 * Builds and seals the certificate of one adapter from a certify run's report (secrets redacted
 * before sealing). Throws when the report has no such adapter.
 */
export const makeCertificate = (input: CertificateInput): Certificate => {
  const report = redactSecrets(input.report)
  const adapters = report.adapters
  const adapter = input.adapter === undefined ? (adapters.length === 1 ? adapters[0] : undefined) : adapters.find((a) => a.fingerprint.name === input.adapter)
  if (adapter === undefined) {
    const names = adapters.map((a) => a.fingerprint.name).join(", ")
    throw new Error(`certificate: ${input.adapter === undefined ? "the report has several adapters" : `no adapter ${input.adapter} in the report`} (${names}); name one`)
  }
  const requirements = adapter.requirements.map(certifiedRequirement)
  const summary = countVerdicts(adapter.requirements)
  const coverage = (adapter.coverage ?? []).map(certifiedCoverage)
  const body: CertificateBody = {
    format: "durable-conformance-certificate",
    formatVersion: CERTIFICATE_FORMAT_VERSION,
    kind: input.kind,
    subjects: [...report.options.subjects],
    ...(input.implementation === undefined ? {} : { implementation: input.implementation }),
    suite: report.suite,
    harnessVersion: report.harnessVersion,
    adapter: adapter.fingerprint,
    seeds: [...input.seeds],
    budget: input.budget,
    filtered: input.filtered,
    issuedAt: input.issuedAt ?? report.finishedAt,
    environment: report.environment,
    requirements,
    summary,
    ...(coverage.length === 0 ? {} : { coverage }),
    conformant: summary.fail === 0 && summary.error === 0 && summary.unknown === 0 && coverage.every((subject) => subject.unreached.length === 0)
  }
  return sealCertificate(body)
}

/** Every `subject: situation` no certification scenario reached (a certificate with any is not conformant). */
export const unreachedSituationsOf = (body: CertificateBody): ReadonlyArray<string> =>
  (body.coverage ?? []).flatMap((subject) => subject.unreached.map((situation) => `${subject.subject}: ${situation}`))

/** The certificate's situation coverage in one paragraph (empty when it has none). */
const coverageParagraph = (body: CertificateBody): string => {
  const coverage = body.coverage ?? []
  if (coverage.length === 0) return ""
  const parts = coverage.map((subject) =>
    `${esc(subject.subject)}: ${subject.reached} of ${subject.situations} situations reached${subject.unreached.length === 0 ? "" : ` — never reached: ${subject.unreached.map(esc).join(", ")}`}`)
  return `<p id="certificate-coverage">Situation coverage: ${parts.join("; ")}</p>`
}

/** The checks `verifyCertificate` runs, in order. */
export type CertificateCheck =
  | "malformed"
  | "body-hash"
  | "suite-version"
  | "suite-hash"
  | "filtered"
  | "budget"
  | "incomplete"

/** One failed check, with a sentence saying what is wrong and what to do. */
export interface CertificateProblem {
  readonly check: CertificateCheck
  readonly message: string
}

/** Result of `verifyCertificate`. */
export type CertificateVerification =
  | { readonly ok: true; readonly certificate: Certificate; readonly conformant: boolean }
  | {
      readonly ok: false
      /** The first check that failed. */
      readonly check: CertificateCheck
      readonly message: string
      /** Every check that failed (structural problems stop the others). */
      readonly problems: ReadonlyArray<CertificateProblem>
    }

/** What a certificate is verified against: the installed suite. */
export interface SuiteIdentity {
  readonly version: string
  /** `computeSuiteHash(packageRoot)` of the installed suite. */
  readonly hash: string
  /** The budget certificates must have been produced with (default `CERTIFICATION_BUDGET`). */
  readonly budget?: CertificationBudget
  /**
   * The suite's requirement catalog. When given, a certificate must list every requirement of its
   * subjects, and an `adapter` certificate must cover every subject.
   */
  readonly requirements?: ReadonlyArray<{ readonly id: string; readonly subject: SubjectName }>
}

const ajv = new Ajv2020({ strict: true, allErrors: true })
ajv.addSchema(reportSchema)
const validateStructure = ajv.compile(certificateSchema)

const completenessProblems = (body: CertificateBody, requirements: SuiteIdentity["requirements"]): ReadonlyArray<CertificateProblem> => {
  if (requirements === undefined) return []
  const problems: Array<CertificateProblem> = []
  if (body.kind === "adapter") {
    const suiteSubjects = [...new Set(requirements.map((r) => r.subject))]
    const missing = suiteSubjects.filter((s) => !body.subjects.includes(s))
    if (missing.length > 0) {
      problems.push({ check: "incomplete", message: `an adapter certificate must cover every subject; missing ${missing.join(", ")}. Run certify without subject filters` })
    }
  }
  const listed = new Set(body.requirements.map((r) => r.requirementId))
  const expected = requirements.filter((r) => body.subjects.includes(r.subject))
  const absent = expected.filter((r) => !listed.has(r.id)).map((r) => r.id)
  if (absent.length > 0) {
    problems.push({
      check: "incomplete",
      message: `the certificate leaves out ${absent.length} requirement${absent.length === 1 ? "" : "s"} of its subjects (${absent.slice(0, 10).join(", ")}${absent.length > 10 ? ", ..." : ""}); certify again with the full suite`
    })
  }
  const known = new Set(requirements.map((r) => r.id))
  const foreign = body.requirements.filter((r) => !known.has(r.requirementId)).map((r) => r.requirementId)
  if (foreign.length > 0) {
    problems.push({ check: "incomplete", message: `the certificate lists requirements this suite does not have (${foreign.slice(0, 10).join(", ")})` })
  }
  return problems
}

/**
 * Checks a certificate (a parsed JSON value) against the installed suite: well-formed, body digest
 * intact, same suite version and content hash, produced by an unfiltered run at the fixed budget,
 * and (when the catalog is given) complete.
 *
 * @example
 * const result = verifyCertificate(JSON.parse(text), { version: "0.1.0", hash: computeSuiteHash(root) })
 * if (!result.ok) console.error(`${result.check}: ${result.message}`)
 */
export const verifyCertificate = (value: unknown, currentSuite: SuiteIdentity): CertificateVerification => {
  const fail = (problems: ReadonlyArray<CertificateProblem>): CertificateVerification => {
    const first = problems[0] ?? { check: "malformed" as const, message: "unknown problem" }
    return { ok: false, check: first.check, message: first.message, problems }
  }
  if (!validateStructure(value)) {
    const details = (validateStructure.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`)
      .join("; ")
    return fail([{ check: "malformed", message: `not a durable-conformance certificate (format version ${CERTIFICATE_FORMAT_VERSION}): ${details}` }])
  }
  const certificate = value as unknown as Certificate
  const { body } = certificate
  const problems: Array<CertificateProblem> = []
  const actualDigest = canonicalSha256(body)
  if (actualDigest !== certificate.integrity.bodySha256) {
    problems.push({
      check: "body-hash",
      message: `the certificate body was modified after it was issued (digest ${actualDigest.slice(0, 12)}… does not match the recorded ${certificate.integrity.bodySha256.slice(0, 12)}…)`
    })
  }
  if (body.suite.version !== currentSuite.version) {
    problems.push({
      check: "suite-version",
      message: `the certificate was produced by suite version ${body.suite.version}, this is version ${currentSuite.version}; verify with that version or certify again`
    })
  }
  if (body.suite.hash !== currentSuite.hash) {
    problems.push({
      check: "suite-hash",
      message: `the certificate's suite hash ${body.suite.hash.slice(0, 12)}… differs from this suite's ${currentSuite.hash.slice(0, 12)}… (requirements, models or properties changed); certify again`
    })
  }
  if (body.filtered) {
    problems.push({ check: "filtered", message: "the certificate comes from a filtered run (some requirements, properties or subjects were left out); certify without filters" })
  }
  const budget = currentSuite.budget ?? CERTIFICATION_BUDGET
  if (body.budget.runsPerProperty !== budget.runsPerProperty || body.budget.seedCount !== budget.seedCount || body.seeds.length !== budget.seedCount) {
    problems.push({
      check: "budget",
      message: `the certificate ran ${body.budget.runsPerProperty} runs per property with ${body.seeds.length} seed(s); certification requires exactly ${budget.runsPerProperty} runs with ${budget.seedCount} seeds`
    })
  }
  problems.push(...completenessProblems(body, currentSuite.requirements))
  if (problems.length > 0) return fail(problems)
  const everySituationReached = (body.coverage ?? []).every((subject) => subject.unreached.length === 0)
  return { ok: true, certificate, conformant: body.conformant && everySituationReached && overallStatus(countCertified(body.requirements)) === "pass" }
}

const countCertified = (requirements: ReadonlyArray<CertifiedRequirement>): VerdictCounts => {
  const counts = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
  for (const r of requirements) counts[r.verdict]++
  return counts
}

/** The certificate as a JSON file: keys sorted, two-space indent, trailing newline. */
export const renderCertificateJson = (certificate: Certificate): string =>
  `${JSON.stringify(JSON.parse(canonicalJson(certificate)), null, 2)}\n`

const CERT_STYLE = `
*{box-sizing:border-box}body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:1000px;margin:24px auto;background:#fff;border:1px solid #d1d9e0;border-radius:10px;padding:28px 32px}
h1{margin:0;font-size:24px}h2{font-size:17px;margin:26px 0 8px}
.mono,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;overflow-wrap:anywhere}
.outcome{display:inline-block;margin:8px 0 4px;padding:3px 12px;border-radius:999px;font-weight:600}
.ok{color:#1a7f37;background:#dafbe1}.bad{color:#cf222e;background:#ffebe9}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:12px 0}dt{color:#59636e}dd{margin:0}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #d1d9e0;padding:5px 8px;text-align:left;vertical-align:top}th{background:#f6f8fa}
td.num,th.num{text-align:right}td.mono{white-space:nowrap;overflow-wrap:normal}
.badge{display:inline-block;min-width:52px;text-align:center;font-size:12px;font-weight:600;padding:1px 8px;border-radius:999px}
.v-pass{color:#1a7f37;background:#dafbe1}.v-fail{color:#cf222e;background:#ffebe9}.v-not-applicable{color:#59636e;background:#eff2f5}
.v-unknown{color:#9a6700;background:#fff8c5}.v-error{color:#8250df;background:#fbefff}
.note{color:#59636e;font-size:12.5px}
`

/**
 * Renders a certificate as a self-contained HTML page (everything escaped, no external assets).
 * The page shows the recorded digest; the JSON file is what `verify-certificate` checks.
 */
export const renderCertificateHtml = (certificate: Certificate): string => {
  const { body } = certificate
  const fp = body.adapter
  const subjectLine = body.kind === "implementation" && body.implementation !== undefined ? `${body.implementation.name} ${body.implementation.version}` : fp.name
  const meta: ReadonlyArray<readonly [string, string]> = [
    ["Kind", esc(body.kind === "adapter" ? "storage adapter certificate" : "implementation certificate")],
    ["Subjects", esc(body.subjects.join(", "))],
    ...(body.implementation === undefined ? [] : [["Implementation", esc(`${body.implementation.name} ${body.implementation.version}`)] as const]),
    ["Adapter", esc(`${fp.name} ${fp.adapterVersion} — ${fp.engine} ${fp.engineVersion} (${fp.dialect})`)],
    [
      "Capabilities",
      esc(
        [
          `independentConnections: ${fp.capabilities.independentConnections}`,
          `rowLocks: ${fp.capabilities.rowLocks}`,
          `snapshotReads: ${fp.capabilities.snapshotReads}`,
          `savepoints: ${fp.capabilities.savepoints}`,
          `platformAlarm: ${fp.capabilities.platformAlarm}`
        ].join(", ")
      )
    ],
    ["Suite", esc(`${body.suite.name} ${body.suite.version}`)],
    ["Suite hash", `<span class="mono">${esc(body.suite.hash)}</span>`],
    ["Harness", esc(body.harnessVersion)],
    ["Budget", esc(`${body.budget.runsPerProperty} runs per property × ${body.budget.seedCount} seeds`)],
    ["Seeds", `<span class="mono">${esc(body.seeds.join(", "))}</span>`],
    ["Filtered run", body.filtered ? `<strong class="bad">yes (not a valid certificate)</strong>` : "no"],
    ["Issued", esc(body.issuedAt)],
    ["Environment", esc(`Node ${body.environment.node} on ${body.environment.platform}/${body.environment.arch}`)],
    ["Body SHA-256", `<span class="mono">${esc(certificate.integrity.bodySha256)}</span>`]
  ]
  const counts = VERDICTS.map((v) => `<span class="badge v-${v}">${esc(VERDICT_LABEL[v])}</span> ${body.summary[v]}`).join(" &nbsp; ")
  const rows = body.requirements.map((r) => {
    const detail =
      r.verdict === "not-applicable" && r.missingCapabilities !== undefined && r.missingCapabilities.length > 0
        ? `needs ${esc(r.missingCapabilities.join(", "))}`
        : r.counterexample !== undefined
          ? `${esc(r.counterexample.explanation)}<br><span class="note">${esc(`${r.counterexample.steps} steps, diverging at step ${r.counterexample.stepIndex}; replay:`)}</span> <code>${esc(
              replayCommand(r.counterexample.replayToken)
            )}</code>`
          : esc(r.reason)
    return `<tr id="cert-${esc(r.requirementId)}"><td class="mono">${esc(r.requirementId)}</td><td>${esc(r.subject)}</td><td>${esc(r.title)}</td><td><span class="badge v-${r.verdict}">${esc(
      VERDICT_LABEL[r.verdict]
    )}</span></td><td>${detail}</td></tr>`
  })
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(`Conformance certificate: ${subjectLine}`)}</title><style>${CERT_STYLE}</style></head><body><main>`,
    `<h1>durable-conformance certificate: ${esc(subjectLine)}</h1>`,
    `<div class="outcome ${body.conformant && !body.filtered ? "ok" : "bad"}" id="certificate-outcome">${body.conformant ? "Conformant: every applicable requirement passes and every situation was reached" : unreachedSituationsOf(body).length > 0 && body.summary.fail === 0 && body.summary.error === 0 && body.summary.unknown === 0 ? "Not conformant: some situations were never reached" : "Not conformant"}</div>`,
    coverageParagraph(body),
    `<dl>${meta.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join("")}</dl>`,
    `<h2>Requirements</h2><p>${counts}</p>`,
    `<table id="certificate-requirements"><thead><tr><th>ID</th><th>Subject</th><th>Requirement</th><th>Verdict</th><th>Details</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    `<p class="note">Check this certificate with <code>npx durable-conformance verify-certificate &lt;certificate.json&gt;</code>. The digest detects edits of the JSON body; it is not a signature.</p>`,
    `</main></body></html>`,
    ""
  ].join("\n")
}
