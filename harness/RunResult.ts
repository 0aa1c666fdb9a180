/**
 * What a run produces: per property run, per requirement verdict, and the whole report that the
 * writers in `reports/` render (JSON, Markdown, HTML, JUnit) and that `replay` reads back.
 * Everything here is plain JSON data so that the JSON report is exactly this object.
 */
import type { SubjectCoverage } from "./Coverage.ts"
import type { AdapterFingerprint, CapabilityName } from "../adapters/contract.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import type { InterleavingGuarantee } from "./PctBound.ts"
import type { Divergence, ExecutionTrace, Json } from "./Property.ts"
import type { ShardRunFacts, ShardSection } from "./Shard.ts"

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

/** Most distinct failed requirements one property run minimizes and reports with a counterexample. */
export const MAX_COUNTEREXAMPLES_PER_RUN = 20

/** What every property run carries, whatever its verdict. */
export interface PropertyRunBase {
  readonly propertyId: string
  readonly subject: SubjectName
  readonly adapter: string
  readonly seed: number
  readonly runsRequested: number
  /**
   * Generated scenarios that ran (shrinking not counted). Equal to `runsRequested` when the property
   * spent its whole budget; fewer only when the time limit cut it short or the adapter broke.
   */
  readonly runsExecuted: number
  readonly durationMs: number
  /**
   * How many executed scenarios reached each requirement's situation (up to the end of the scenario or
   * its divergence; a scenario that diverged on a requirement reached it).
   */
  readonly covered: Readonly<Record<string, number>>
  /**
   * How many executed scenarios reached each of the model's named situations (only situations reached
   * at least once; the suite's `situations` lists them all). Absent when the subject names none.
   */
  readonly situations?: Readonly<Record<string, number>>
  /**
   * Only for a property that declares an interleaving shape: n, k, d and the PCT bound per depth over
   * the PCT runs counted in `situations` (`harness/PctBound.ts`).
   */
  readonly interleaving?: InterleavingGuarantee
  /**
   * Only in a shard's run (`run --shard k/n`, `harness/Shard.ts`): what each executed scenario
   * contributed, for `merge-reports`, which strips it.
   */
  readonly shardFacts?: ShardRunFacts
}

/** The whole budget ran and every scenario held. */
export interface PassedPropertyRun extends PropertyRunBase {
  readonly verdict: "pass"
}

/** The time limit cut the search short and no scenario failed: nothing is certain. */
export interface UnknownPropertyRun extends PropertyRunBase {
  readonly verdict: "unknown"
}

/**
 * At least one requirement failed. The search went on after the first failure: every distinct failed
 * requirement (up to `MAX_COUNTEREXAMPLES_PER_RUN`) has its own minimized counterexample, in the order
 * they were found.
 */
export interface FailedPropertyRun extends PropertyRunBase {
  readonly verdict: "fail"
  /** One per failed requirement, never empty, each diverging on its own requirement. */
  readonly counterexamples: readonly [Counterexample, ...ReadonlyArray<Counterexample>]
  /**
   * Per failed requirement (the keys are those of `counterexamples`): further scenarios that diverged
   * on it after its first one. Each such scenario ended there without a new report ("known").
   */
  readonly knownFailures: Readonly<Record<string, number>>
  /**
   * Present only when the bound was hit: requirements that failed after `MAX_COUNTEREXAMPLES_PER_RUN`
   * others already had, with how many scenarios diverged on each; they have no counterexample.
   */
  readonly failuresBeyondBound?: Readonly<Record<string, number>>
}

/** The adapter lacks a capability the property needs; nothing ran. */
export interface NotApplicablePropertyRun extends PropertyRunBase {
  readonly verdict: "not-applicable"
  /** The capabilities the adapter lacks (at least one). */
  readonly missingCapabilities: ReadonlyArray<CapabilityName>
}

/** The adapter threw or hung, or the implementation was non-deterministic: no requirement verdict. */
export interface ErrorPropertyRun extends PropertyRunBase {
  readonly verdict: "error"
  /** What broke, with a hint. */
  readonly error: { readonly message: string; readonly hint: string }
}

/** One property run on one adapter: a union keyed by `verdict`, each variant carrying its own data. */
export type PropertyRun = PassedPropertyRun | UnknownPropertyRun | FailedPropertyRun | NotApplicablePropertyRun | ErrorPropertyRun

/** The counterexamples of a run: none unless it failed. */
export const counterexamplesOf = (run: PropertyRun): ReadonlyArray<Counterexample> => (run.verdict === "fail" ? run.counterexamples : [])

/** The counterexample of `requirementId` in a run, if it failed on it. */
export const counterexampleFor = (run: PropertyRun, requirementId: string): Counterexample | undefined =>
  counterexamplesOf(run).find((counterexample) => counterexample.divergence.requirementId === requirementId)

/** The requirement IDs a run failed on, each with its own counterexample, in the order found. */
export const failedRequirementIds = (run: PropertyRun): ReadonlyArray<string> =>
  counterexamplesOf(run).map((counterexample) => counterexample.divergence.requirementId)

/** True when the run spent its whole budget (every requested scenario ran). */
export const spentWholeBudget = (run: PropertyRun): boolean => run.runsExecuted >= run.runsRequested

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
  /** For fail: this requirement's own minimized counterexample (absent only beyond the per-run bound). */
  readonly counterexample?: Counterexample
}

/** All results for one adapter. */
export interface AdapterResult {
  readonly fingerprint: AdapterFingerprint
  readonly requirements: ReadonlyArray<RequirementResult>
  readonly properties: ReadonlyArray<PropertyRun>
  /** Situation coverage per subject that names situations and applies to the adapter (`Coverage.ts`). */
  readonly coverage?: ReadonlyArray<SubjectCoverage>
}

/** Totals by verdict. */
export interface VerdictCounts {
  readonly pass: number
  readonly fail: number
  readonly "not-applicable": number
  readonly unknown: number
  readonly error: number
}

/** Version of the JSON report's schema: 2 since `PropertyRun` is a union keyed by verdict. */
export const REPORT_SCHEMA_VERSION = 2 as const

/** The JSON report; `schemaVersion` changes whenever a field changes meaning or is removed. */
export interface ConformanceReport {
  readonly schemaVersion: typeof REPORT_SCHEMA_VERSION
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
  /** Only in a shard's report (`run --shard k/n`): consumed and stripped by `merge-reports`. */
  readonly shard?: ShardSection
}
