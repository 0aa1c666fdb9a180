/**
 * A conformance run: every suite's properties on every adapter, one seed, one budget, assembled into
 * the `ConformanceReport` the writers render. Adapters are built one at a time inside their own scope,
 * so a server an adapter starts is stopped before the next adapter starts.
 */
import { Effect } from "effect"
import type { AdapterDefinition, AdapterError } from "../adapters/contract.ts"
import type { HarnessError, InvalidOptionsError } from "./errors.ts"
import { deriveSeed } from "./RunEnvironment.ts"
import { type AdapterResult, type ConformanceReport, type PropertyRun, REPORT_SCHEMA_VERSION } from "./RunResult.ts"
import { type RunProgress, runProperty } from "./Runner.ts"
import { requirementsByProperty, type SubjectSuite } from "./Suite.ts"
import { HARNESS_VERSION, SUITE_NAME, SUITE_VERSION } from "./SuiteVersion.ts"
import { countVerdicts, requirementResults } from "./Verdicts.ts"

/** Events a conformance run reports while it goes, for progress output. */
export type ConformanceEvent =
  | { readonly type: "adapter-start"; readonly adapter: string; readonly index: number; readonly total: number }
  | { readonly type: "progress"; readonly progress: RunProgress }
  | { readonly type: "property-done"; readonly run: PropertyRun }
  | { readonly type: "adapter-done"; readonly adapter: string; readonly result: AdapterResult }

/** Options of `runConformance`. */
export interface ConformanceOptions {
  readonly kind: "run" | "certify"
  readonly adapters: ReadonlyArray<AdapterDefinition>
  readonly suites: ReadonlyArray<SubjectSuite>
  readonly runs: number
  readonly seed: number
  /** Content hash of the suite (computed from its files by the caller; `unhashed` when unavailable). */
  readonly suiteHash: string
  readonly timeLimitMsPerProperty?: number
  readonly runTimeoutMs?: number
  readonly onEvent?: (event: ConformanceEvent) => void
}

/** The seed one property run gets: stable per (base seed, property, adapter). */
export const propertySeed = (baseSeed: number, propertyId: string, adapter: string): number =>
  deriveSeed(baseSeed, `${propertyId}@${adapter}`)

/** Runs every suite on every adapter and returns the report. Adapter build failures fail the whole run. */
export const runConformance = Effect.fn("runConformance")(function*(options: ConformanceOptions) {
  const startedAt = new Date().toISOString()
  const byProperty = requirementsByProperty(options.suites)
  const requirements = options.suites.flatMap((suite) => suite.requirements)
  const adapterResults: Array<AdapterResult> = []
  for (const [index, definition] of options.adapters.entries()) {
    options.onEvent?.({ type: "adapter-start", adapter: definition.name, index, total: options.adapters.length })
    const result = yield* Effect.scoped(
      Effect.gen(function*() {
        const adapter = yield* definition.make
        const fingerprint = yield* adapter.fingerprint
        const runs: Array<PropertyRun> = []
        for (const suite of options.suites) {
          for (const property of suite.properties) {
            const run = yield* runProperty({
              property,
              adapter,
              seed: propertySeed(options.seed, property.id, adapter.name),
              runs: options.runs,
              ...(options.timeLimitMsPerProperty === undefined ? {} : { timeLimitMs: options.timeLimitMsPerProperty }),
              ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs }),
              onProgress: (progress) => options.onEvent?.({ type: "progress", progress })
            })
            runs.push(run)
            options.onEvent?.({ type: "property-done", run })
          }
        }
        const adapterResult: AdapterResult = {
          fingerprint,
          properties: runs,
          requirements: requirementResults(requirements, runs, byProperty, adapter.capabilities)
        }
        return adapterResult
      })
    )
    adapterResults.push(result)
    options.onEvent?.({ type: "adapter-done", adapter: definition.name, result })
  }
  const report: ConformanceReport = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    kind: options.kind,
    suite: { name: SUITE_NAME, version: SUITE_VERSION, hash: options.suiteHash },
    harnessVersion: HARNESS_VERSION,
    startedAt,
    finishedAt: new Date().toISOString(),
    environment: {
      node: typeof process === "undefined" ? "unknown" : process.version,
      platform: typeof process === "undefined" ? "unknown" : process.platform,
      arch: typeof process === "undefined" ? "unknown" : process.arch,
      ci: typeof process !== "undefined" && process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false"
    },
    options: {
      subjects: [...new Set(options.suites.map((suite) => suite.subject))],
      adapters: options.adapters.map((definition) => definition.name),
      runs: options.runs,
      seed: options.seed
    },
    adapters: adapterResults,
    summary: countVerdicts(adapterResults.flatMap((result) => result.requirements.map((requirement) => requirement.verdict)))
  }
  return report
}) as (options: ConformanceOptions) => Effect.Effect<ConformanceReport, HarnessError | InvalidOptionsError | AdapterError>
