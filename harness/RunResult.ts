/**
 * What a run produces: per property run, per requirement verdict, and the whole report that the
 * writers in `reports/` render (JSON, Markdown, HTML, JUnit) and that `replay` reads back.
 * Everything here is plain JSON data so that the JSON report is exactly this object.
 */
import type { AdapterFingerprint, CapabilityName } from "../adapters/contract.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import type { Divergence, ExecutionTrace, Json } from "./Property.ts"

/** Verdict of one requirement on one adapter. */
export type Verdict = "pass" | "fail" | "not-applicable" | "unknown" | "error"

/** A minimized, replayable failure. */
export interface Counterexample {
  readonly propertyId: string
  /** The minimized scenario (plain JSON), exactly what `replay` executes again. */
  readonly scenario: Json
  /** The steps that ran for the minimized scenario, with model and implementation side by side. */
  readonly trace: ExecutionTrace
  readonly divergence: Divergence
  /** fast-check seed and shrink path of the failure. */
  readonly seed: number
  readonly path: string
  /** One token bundling everything needed to replay (see `harness/ReplayToken.ts`). */
  readonly replayToken: string
  /** Generated cases that ran before the first failing one was found (1 = the first case failed). */
  readonly runsToDetect: number
  /** Successful shrink steps from the first failing case to this one. */
  readonly shrinkSteps: number
}

/** One property run on one adapter: `runsRequested` generated scenarios, or fewer on failure. */
export interface PropertyRun {
  readonly propertyId: string
  readonly subject: SubjectName
  readonly adapter: string
  readonly seed: number
  readonly runsRequested: number
  readonly runsExecuted: number
  readonly verdict: Verdict
  readonly durationMs: number
  /** How many executed scenarios reached each requirement's situation. */
  readonly covered: Readonly<Record<string, number>>
  readonly counterexample?: Counterexample
  /** For `error`: what broke (adapter threw or hung), with a hint. */
  readonly error?: { readonly message: string; readonly hint: string }
  /** For `not-applicable`: the capabilities the adapter lacks. */
  readonly missingCapabilities?: ReadonlyArray<CapabilityName>
}

/** The verdict of one requirement on one adapter, with the reason in one sentence. */
export interface RequirementResult {
  readonly requirementId: string
  readonly subject: SubjectName
  readonly title: string
  readonly verdict: Verdict
  /** Plain words: why this verdict (which property witnessed it, or which capability is missing). */
  readonly reason: string
  readonly propertyIds: ReadonlyArray<string>
  /** Executed scenarios that reached this requirement's situation. */
  readonly coveredRuns: number
  readonly missingCapabilities?: ReadonlyArray<CapabilityName>
  readonly counterexample?: Counterexample
}

/** All results for one adapter. */
export interface AdapterResult {
  readonly fingerprint: AdapterFingerprint
  readonly requirements: ReadonlyArray<RequirementResult>
  readonly properties: ReadonlyArray<PropertyRun>
}

/** Totals by verdict. */
export interface VerdictCounts {
  readonly pass: number
  readonly fail: number
  readonly "not-applicable": number
  readonly unknown: number
  readonly error: number
}

/** The JSON report; `schemaVersion` changes whenever a field changes meaning or is removed. */
export interface ConformanceReport {
  readonly schemaVersion: 1
  readonly kind: "run" | "certify"
  readonly suite: { readonly name: string; readonly version: string; readonly hash: string }
  readonly harnessVersion: string
  /** Wall-clock times: the only bytes allowed to differ between two runs with the same seed. */
  readonly startedAt: string
  readonly finishedAt: string
  readonly environment: { readonly node: string; readonly platform: string; readonly arch: string; readonly ci: boolean }
  readonly options: {
    readonly subjects: ReadonlyArray<SubjectName>
    readonly adapters: ReadonlyArray<string>
    readonly runs: number
    readonly seed: number
  }
  readonly adapters: ReadonlyArray<AdapterResult>
  readonly summary: VerdictCounts
}
