/**
 * A conformance run: every suite's properties on every adapter, one seed, one budget, assembled into
 * the `ConformanceReport` the writers render. Each adapter is built inside its own scope, so a server
 * it starts is stopped when its properties are done. Adapters run one at a time by default; with
 * `adapterConcurrency` > 1 that many run side by side (an adapter whose databases live in another
 * process, a Postgres server or workerd, then overlaps with an in-process one). Each property run's
 * seed, budget and virtual clock are its own, so the report is the same whatever the concurrency, and
 * its adapters keep the order they were given in.
 *
 * Nothing here waits without a bound: the adapter's `make` (with its fingerprint) and the closing of
 * its scope get `adapterLifecycleTimeoutMs`, each scenario phase the run timeout (`Runner.ts`). An
 * adapter that cannot be made, hangs, or cannot be closed gets verdict `error` (naming the phase) and
 * the run goes on with the next adapter, so the reports are still written. After an adapter hung once,
 * its remaining properties end at once as `error` with the same cause instead of each waiting out its
 * own deadline.
 */
import { Cause, Effect, Exit, Scope } from "effect"
import type { AdapterCapabilities, AdapterDefinition, AdapterFingerprint, StorageAdapter } from "../adapters/contract.ts"
import { type AdapterHang, type AdapterPhase, adapterLifecycleTimeoutMs, afterHangMessage, hangError, hangHint, hangOf, withDeadline } from "./Deadline.ts"
import { type HarnessError, InvalidOptionsError } from "./errors.ts"
import type { PropertyDefinition } from "./Property.ts"
import { situationCoverage } from "./Coverage.ts"
import { deriveSeed } from "./RunEnvironment.ts"
import { type AdapterResult, type ConformanceReport, type PropertyRun, REPORT_SCHEMA_VERSION, type RequirementResult } from "./RunResult.ts"
import { missingCapabilities, type RunProgress, runProperty } from "./Runner.ts"
import { type Shard, shardRunCount } from "./Shard.ts"
import { requirementsByProperty, type SubjectSuite } from "./Suite.ts"
import { HARNESS_VERSION, SUITE_NAME, SUITE_VERSION } from "./SuiteVersion.ts"
import { countVerdicts, requirementResults } from "./Verdicts.ts"
import type { Requirement } from "../spec/Requirement.ts"

/** Events a conformance run reports while it goes, for progress output. */
export type ConformanceEvent =
  | { readonly type: "adapter-start"; readonly adapter: string; readonly index: number; readonly total: number }
  | { readonly type: "progress"; readonly progress: RunProgress }
  | { readonly type: "property-done"; readonly run: PropertyRun }
  | { readonly type: "adapter-done"; readonly adapter: string; readonly result: AdapterResult }
  /** The adapter could not be made or closed (threw, failed or hung): its verdicts are `error`. */
  | { readonly type: "adapter-error"; readonly adapter: string; readonly phase: "make" | "close"; readonly error: AdapterProblem }

/** What went wrong with an adapter, in the words the reports and the CLI print. */
export interface AdapterProblem {
  readonly message: string
  readonly hint: string
}

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
  /** Wall-clock limit of each scenario phase; `make` and close get `adapterLifecycleTimeoutMs` of it. */
  readonly runTimeoutMs?: number
  readonly onEvent?: (event: ConformanceEvent) => void
  /** Run every scenario twice and end a property run with verdict `error` at the first difference. */
  readonly checkDeterminism?: boolean
  /** How many adapters run side by side (default 1; at most `MAX_ADAPTER_CONCURRENCY`). */
  readonly adapterConcurrency?: number
  /** Execute only this shard's scenarios of every property run (`Shard.ts`, `run --shard k/n`). */
  readonly shard?: Shard
}

/** Bound on `adapterConcurrency`: more adapters side by side than this only contend for the same cores. */
export const MAX_ADAPTER_CONCURRENCY = 8

/** The seed one property run gets: stable per (base seed, property, adapter). */
export const propertySeed = (baseSeed: number, propertyId: string, adapter: string): number =>
  deriveSeed(baseSeed, `${propertyId}@${adapter}`)

/** What one property run is, before it runs: for runs that end without running. */
export interface PlannedRun {
  readonly property: PropertyDefinition<any>
  readonly adapter: string
  readonly seed: number
  readonly runs: number
}

/** A property run that ended with verdict `error` before executing anything. */
export const errorPropertyRun = (planned: PlannedRun, error: AdapterProblem): PropertyRun => ({
  propertyId: planned.property.id,
  subject: planned.property.subject,
  adapter: planned.adapter,
  seed: planned.seed,
  runsRequested: planned.runs,
  runsExecuted: 0,
  durationMs: 0,
  covered: {},
  verdict: "error",
  error: { message: error.message, hint: error.hint }
})

/** The run of a property not started because its adapter already hung: says so, with the first hang. */
export const notRunAfterHang = (planned: PlannedRun, hang: AdapterHang): PropertyRun =>
  errorPropertyRun(planned, { message: afterHangMessage(hang), hint: hangHint(hang.phase) })

const describeSquashed = (error: unknown): string => {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  if (typeof error === "object" && error !== null && "message" in error) return String((error as { message: unknown }).message)
  return String(error)
}

/**
 * The problem of a failed `make` or close, for the adapter's author: a hang names the phase, a typed
 * `AdapterError` keeps its own message and hint, and anything thrown says that the adapter threw.
 */
export const lifecycleProblem = (adapter: string, phase: "make" | "close", cause: Cause.Cause<unknown>): AdapterProblem => {
  const error = Cause.squash(cause)
  if (hangOf(error) !== undefined) return { message: (error as HarnessError).message, hint: (error as HarnessError).hint }
  const tagged = error as { readonly _tag?: unknown; readonly message?: unknown; readonly hint?: unknown }
  if (tagged !== null && typeof tagged === "object" && tagged._tag === "AdapterError") {
    return { message: `adapter ${adapter} could not ${phase === "make" ? "start" : "be closed"}: ${String(tagged.message)}`, hint: String(tagged.hint) }
  }
  const where = phase === "make" ? "its make" : "a finalizer of its make"
  return {
    message: `adapter ${adapter}: ${where} threw ${describeSquashed(error)}`,
    hint: `fix the adapter: ${where} must not throw; fail with an AdapterError (adapters/contract.ts) whose hint tells your users what to do`
  }
}

/** Capabilities under which every requirement applies: verdicts of an adapter that never started are all `error`. */
const EVERY_CAPABILITY: AdapterCapabilities = { independentConnections: true, rowLocks: true, snapshotReads: true, savepoints: true, platformAlarm: "native" }

/**
 * Placeholder fingerprint of an adapter whose `make` never finished: only the name is known (the report
 * schema requires a dialect; `sqlite` stands in, and no capability is claimed).
 */
const unstartedFingerprint = (name: string): AdapterFingerprint => ({
  name,
  adapterVersion: "unknown",
  engine: "unknown",
  engineVersion: "(the adapter did not start)",
  dialect: "sqlite",
  capabilities: { independentConnections: false, rowLocks: false, snapshotReads: false, savepoints: false, platformAlarm: "emulated" }
})

/** The plan every adapter of a run shares. */
interface RunPlan {
  readonly options: ConformanceOptions
  readonly requirements: ReadonlyArray<Requirement>
  readonly byProperty: ReadonlyMap<string, ReadonlyArray<string>>
  readonly lifecycleMs: number
}

const planned = (plan: RunPlan, property: PropertyDefinition<any>, adapter: string): PlannedRun =>
  ({
    property,
    adapter,
    seed: propertySeed(plan.options.seed, property.id, adapter),
    runs: plan.options.shard === undefined ? plan.options.runs : shardRunCount(plan.options.shard, plan.options.runs)
  })

/** The result of an adapter that could not be made: every property and requirement `error`. */
const unstartedResult = (plan: RunPlan, name: string, error: AdapterProblem): AdapterResult => {
  const runs = plan.options.suites.flatMap((suite) => suite.properties.map((property) => errorPropertyRun(planned(plan, property, name), error)))
  return { fingerprint: unstartedFingerprint(name), properties: runs, requirements: requirementResults(plan.requirements, runs, plan.byProperty, EVERY_CAPABILITY) }
}

/** `result` after its adapter could not be closed: every requirement that did not fail becomes `error`. */
const withCloseError = (result: AdapterResult, error: AdapterProblem): AdapterResult => ({
  ...result,
  requirements: result.requirements.map((requirement): RequirementResult =>
    requirement.verdict === "fail"
      ? requirement
      : {
        requirementId: requirement.requirementId,
        subject: requirement.subject,
        title: requirement.title,
        propertyIds: requirement.propertyIds,
        coveredRuns: requirement.coveredRuns,
        verdict: "error",
        reason: error.message
      }
  )
})

/** Every property of the run on one made adapter; after a hang the rest end at once (`notRunAfterHang`). */
const runProperties = (plan: RunPlan, adapter: StorageAdapter) =>
  Effect.gen(function*() {
    const { options } = plan
    const state: { hung?: AdapterHang } = {}
    const runs: Array<PropertyRun> = []
    for (const property of options.suites.flatMap((suite) => suite.properties)) {
      const { seed } = planned(plan, property, adapter.name)
      const run = state.hung !== undefined && missingCapabilities(property, adapter).length === 0
        ? notRunAfterHang(planned(plan, property, adapter.name), state.hung)
        : yield* runProperty({
          property,
          adapter,
          seed,
          runs: options.runs,
          ...(options.timeLimitMsPerProperty === undefined ? {} : { timeLimitMs: options.timeLimitMsPerProperty }),
          ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs }),
          ...(options.checkDeterminism === true ? { checkDeterminism: true } : {}),
          ...(options.shard === undefined ? {} : { shard: options.shard }),
          onProgress: (progress) => options.onEvent?.({ type: "progress", progress }),
          onHang: (hang) => void (state.hung ??= hang)
        })
      runs.push(run)
      options.onEvent?.({ type: "property-done", run })
    }
    return runs
  })

/** Closes `scope` within the lifecycle deadline; a hang or a failing finalizer is the exit's failure. */
const closeWithin = (plan: RunPlan, name: string, scope: Scope.Closeable, exit: Exit.Exit<unknown, unknown>) =>
  Effect.exit(withDeadline(Scope.close(scope, exit), plan.lifecycleMs, () => hangError({ adapter: name, phase: "close", timeoutMs: plan.lifecycleMs })))

const makeAdapter = (plan: RunPlan, definition: AdapterDefinition, scope: Scope.Closeable) =>
  withDeadline(
    Scope.provide(scope)(Effect.flatMap(definition.make, (adapter) => Effect.map(adapter.fingerprint, (fingerprint) => ({ adapter, fingerprint })))),
    plan.lifecycleMs,
    () => hangError({ adapter: definition.name, phase: "make" satisfies AdapterPhase, timeoutMs: plan.lifecycleMs })
  )

/** One adapter: make it (bounded), run every property, close it (bounded); failures become `error` verdicts. */
const runAdapter = (plan: RunPlan, definition: AdapterDefinition) =>
  Effect.gen(function*() {
    const { onEvent } = plan.options
    const scope = yield* Scope.make()
    // Interrupted from outside (Ctrl-C) while making it: still stop what it started, within the limit.
    const made = yield* Effect.exit(makeAdapter(plan, definition, scope)).pipe(Effect.onInterrupt(() => closeWithin(plan, definition.name, scope, Exit.void)))
    if (Exit.isFailure(made)) {
      const error = lifecycleProblem(definition.name, "make", made.cause)
      // After a hang the finalizers may wait on the hung work: close in the background, never waited for.
      if (hangOf(Cause.squash(made.cause)) !== undefined) yield* Effect.forkDetach(Scope.close(scope, made))
      else yield* closeWithin(plan, definition.name, scope, made)
      onEvent?.({ type: "adapter-error", adapter: definition.name, phase: "make", error })
      return unstartedResult(plan, definition.name, error)
    }
    const { adapter, fingerprint } = made.value
    const runs = yield* runProperties(plan, adapter).pipe(
      Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : closeWithin(plan, definition.name, scope, exit)))
    )
    const coverage = situationCoverage(plan.options.suites, runs, adapter.capabilities)
    const result: AdapterResult = {
      fingerprint,
      properties: runs,
      requirements: requirementResults(plan.requirements, runs, plan.byProperty, adapter.capabilities),
      ...(coverage.length === 0 ? {} : { coverage })
    }
    const closed = yield* closeWithin(plan, definition.name, scope, Exit.void)
    if (Exit.isSuccess(closed)) return result
    const error = lifecycleProblem(definition.name, "close", closed.cause)
    onEvent?.({ type: "adapter-error", adapter: definition.name, phase: "close", error })
    return withCloseError(result, error)
  })

/**
 * Runs every suite on every adapter and returns the report. An adapter that cannot be made or closed,
 * or that hangs, is reported with verdict `error`; the run goes on with the next adapter.
 */
export const runConformance = Effect.fn("runConformance")(function*(options: ConformanceOptions) {
  const startedAt = new Date().toISOString()
  const plan: RunPlan = {
    options,
    requirements: options.suites.flatMap((suite) => suite.requirements),
    byProperty: requirementsByProperty(options.suites),
    lifecycleMs: adapterLifecycleTimeoutMs(options.runTimeoutMs)
  }
  const concurrency = options.adapterConcurrency ?? 1
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_ADAPTER_CONCURRENCY) {
    return yield* new InvalidOptionsError({
      message: `adapterConcurrency must be an integer from 1 to ${MAX_ADAPTER_CONCURRENCY}, got ${concurrency}`,
      hint: "run the adapters one at a time with 1, or as many side by side as the machine has cores"
    })
  }
  const adapterResults = yield* Effect.forEach(options.adapters, (definition, index) =>
    Effect.gen(function*() {
      options.onEvent?.({ type: "adapter-start", adapter: definition.name, index, total: options.adapters.length })
      const result = yield* runAdapter(plan, definition)
      options.onEvent?.({ type: "adapter-done", adapter: definition.name, result })
      return result
    }), { concurrency })
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
}) as (options: ConformanceOptions) => Effect.Effect<ConformanceReport, HarnessError | InvalidOptionsError>
