/**
 * `durable-conformance certify --adapter <module | name> [--out dir]`,
 * `durable-conformance certify --implementation <module> [--adapter <module | name>] [--out dir]` and
 * `durable-conformance verify-certificate <certificate.json>`.
 *
 * With `--implementation`, the certificate is of kind `implementation`: the third-party implementation
 * of its subject (alarms) on the given adapter (default sqlite), plus the adapter contract of that
 * adapter, since the implementation's verdicts are only as good as the storage under it.
 *
 * Certification runs the adapter contract and then every subject at the fixed budget with the fixed
 * seeds, refuses filters and overrides, and writes certificate.json + certificate.html next to the usual
 * reports. Verification checks a certificate's integrity digest, suite version and content hash, budget,
 * and completeness against the installed suite.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Data, Effect } from "effect"
import { CERTIFY_SEEDS } from "../../harness/Budget.ts"
import { type AdapterProblem, runConformance } from "../../harness/Conformance.ts"
import type { AdapterResult, ConformanceReport } from "../../harness/RunResult.ts"
import { requirementsByProperty, type SubjectSuite } from "../../harness/Suite.ts"
import { countVerdicts, requirementResults } from "../../harness/Verdicts.ts"
import { SUITE_VERSION } from "../../harness/SuiteVersion.ts"
import { suites } from "../../properties/registry.ts"
import { situationCoverage } from "../../harness/Coverage.ts"
import { CERTIFICATION_BUDGET, type CertificateBody, makeCertificate, renderCertificateHtml, renderCertificateJson, unreachedSituationsOf, verifyCertificate } from "../../reports/certificate.ts"
import { allRequirements } from "../../spec/index.ts"
import type { CliIo } from "../io.ts"
import { type CertifyOptions, UsageError } from "../options.ts"
import { bindSuites, loadImplementationModule } from "../implementation.ts"
import { resolveIsolatedAdapters } from "../isolation.ts"
import { collectingEvents } from "./run.ts"
import { progressPrinter } from "../progress.ts"
import { recordReplayOrigins } from "../replayOrigin.ts"
import { renderSummary } from "../summary.ts"
import { checkOutputs, currentSuiteHash, publishReport, REPORT_FILES } from "../writeReports.ts"

/** A certificate file could not be read or did not verify. */
export class CertificateError extends Data.TaggedError("CertificateError")<{ readonly message: string; readonly hint: string }> {}

/** Merges the reports of several seeds: every property run counts, verdicts are recomputed over all of them. */
export const mergeSeedReports = (reports: ReadonlyArray<ConformanceReport>, certified: ReadonlyArray<SubjectSuite>): ConformanceReport => {
  const first = reports[0]!
  const byProperty = requirementsByProperty(certified)
  const requirements = certified.flatMap((suite) => suite.requirements)
  const adapters: Array<AdapterResult> = first.adapters.map((adapter, index) => {
    const runs = reports.flatMap((report) => report.adapters[index]!.properties)
    const coverage = situationCoverage(certified, runs, adapter.fingerprint.capabilities)
    return {
      fingerprint: adapter.fingerprint,
      properties: runs,
      requirements: requirementResults(requirements, runs, byProperty, adapter.fingerprint.capabilities),
      ...(coverage.length === 0 ? {} : { coverage })
    }
  })
  return {
    ...first,
    finishedAt: reports[reports.length - 1]!.finishedAt,
    adapters,
    summary: countVerdicts(adapters.flatMap((adapter) => adapter.requirements.map((requirement) => requirement.verdict)))
  }
}

/** The certificate files `certify` writes next to the reports. */
export const CERTIFICATE_FILES: ReadonlyArray<string> = ["certificate.json", "certificate.html"]

/** Certifies one adapter against every suite, or one third-party implementation (and the adapter it runs on). */
export const certifyCommand = (options: CertifyOptions, io: CliIo) =>
  Effect.scoped(Effect.gen(function*() {
    yield* checkOutputs(options.outDir, io, [...REPORT_FILES, ...CERTIFICATE_FILES])
    const binding = options.implementation === undefined ? undefined : yield* loadImplementationModule(options.implementation, io.cwd)
    const certified = binding === undefined
      ? suites
      : bindSuites(suites.filter((suite) => suite.subject === "adapter" || suite.subject === binding.subject), binding)
    const [definition] = yield* resolveIsolatedAdapters([options.adapter], binding, { cwd: io.cwd, env: io.env })
    const seeds = CERTIFY_SEEDS.slice(0, CERTIFICATION_BUDGET.seedCount)
    const adapterErrors: Array<AdapterProblem> = []
    const onEvent = collectingEvents(progressPrinter(io, { quiet: options.quiet, seeds }), adapterErrors)
    const reports: Array<ConformanceReport> = []
    for (const seed of seeds) {
      reports.push(yield* runConformance({
        kind: "certify",
        adapters: [definition!],
        suites: certified,
        runs: CERTIFICATION_BUDGET.runsPerProperty,
        seed,
        suiteHash: currentSuiteHash(),
        onEvent
      }))
    }
    // Replay tokens name the adapter and implementation modules, so printed replay commands work as printed.
    const report = recordReplayOrigins(mergeSeedReports(reports, certified), { adapters: [options.adapter], implementation: options.implementation, cwd: io.cwd })
    const certificate = binding === undefined
      ? makeCertificate({ report, kind: "adapter", budget: CERTIFICATION_BUDGET, seeds, filtered: false })
      : makeCertificate({
        report,
        kind: "implementation",
        implementation: { name: binding.implementation.name, version: binding.version },
        budget: CERTIFICATION_BUDGET,
        seeds,
        filtered: false
      })
    return publishReport(report, io, {
      outDir: options.outDir,
      quiet: options.quiet,
      extraFiles: [["certificate.json", renderCertificateJson(certificate)], ["certificate.html", renderCertificateHtml(certificate)]],
      adapterErrors,
      summary: (paths) =>
        renderSummary(report, { reportPaths: paths, seeds }) +
        certificateOutcomeLine(certificate.body)
    })
  }))

/** The certify summary's last line: conformant, or why not (failing requirements, or situations never reached). */
export const certificateOutcomeLine = (body: CertificateBody): string => {
  if (body.conformant) return "certificate: conformant\n"
  const unreached = unreachedSituationsOf(body)
  const requirementsHold = body.summary.fail === 0 && body.summary.error === 0 && body.summary.unknown === 0
  if (requirementsHold && unreached.length > 0) {
    return `certificate: NOT conformant: every requirement held, but no scenario reached ${unreached.length} situation(s) (${unreached.slice(0, 5).join(", ")}${unreached.length > 5 ? ", ..." : ""}); the implementation never exercised them, so nothing is certified about them\n`
  }
  return "certificate: NOT conformant (see the failing requirements above)\n"
}

/** Verifies a certificate file against this suite; exit 0 when valid (and says whether it is conformant), 1 when not. */
export const verifyCertificateCommand = (argv: ReadonlyArray<string>, io: CliIo) =>
  Effect.gen(function*() {
    const files = argv.filter((arg) => !arg.startsWith("--"))
    if (files.length !== 1) {
      return yield* new UsageError({ message: `verify-certificate takes one file, got ${files.length}`, hint: "durable-conformance verify-certificate certificate.json" })
    }
    const path = resolve(io.cwd, files[0]!)
    const value = yield* Effect.try({
      try: () => JSON.parse(readFileSync(path, "utf8")) as unknown,
      catch: (error) => new CertificateError({ message: `cannot read ${files[0]}: ${error instanceof Error ? error.message : String(error)}`, hint: "pass the certificate.json written by certify" })
    })
    const result = verifyCertificate(value, {
      version: SUITE_VERSION,
      hash: currentSuiteHash(),
      requirements: allRequirements.map((requirement) => ({ id: requirement.id, subject: requirement.subject }))
    })
    if (!result.ok) {
      io.stdout(`certificate INVALID (${result.check}): ${result.message}\n`)
      for (const problem of result.problems.slice(1)) io.stdout(`  also ${problem.check}: ${problem.message}\n`)
      return 1
    }
    const body = result.certificate.body
    const implementation = body.implementation === undefined ? "" : `implementation ${body.implementation.name} ${body.implementation.version} on `
    io.stdout(`certificate valid: ${implementation}${body.adapter.name} (${body.adapter.engine} ${body.adapter.engineVersion}), suite ${body.suite.version} ${body.suite.hash.slice(0, 12)}, ${body.summary.pass} pass, ${body.summary.fail} fail, ${body.summary["not-applicable"]} n/a, ${body.summary.unknown} unknown: ${result.conformant ? "conformant" : "NOT conformant"}\n`)
    return 0
  })
