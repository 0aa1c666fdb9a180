/**
 * The runner: one model-based property x one adapter x one seed x a budget of runs -> a structured
 * `PropertyRun` (verdict; when it fails, one minimized counterexample per failed requirement, each with
 * its trace, seed, path and replay token; coverage).
 *
 * The runner spends the whole budget even after a failure (`FailureSearch.ts`): later scenarios that
 * diverge on an already failed requirement are counted as known, new failed requirements get their own
 * counterexample, shrunk so that it keeps failing on that same requirement.
 *
 * Every generated scenario runs on a fresh isolated database, under a fresh virtual clock and a
 * `Random` seeded from the scenario's own bytes, so the same scenario always executes the same way.
 * Infrastructure failures (an adapter that throws or hangs) are reported as `error`, never as a
 * requirement failure, and never shrunk.
 */
import { Cause, Effect, Exit, Scope } from "effect"
import * as fc from "fast-check"
import { type CapabilityName, hasCapability, type StorageAdapter } from "../adapters/contract.ts"
import { type AdapterHang, type AdapterPhase, adapterLifecycleTimeoutMs, DEFAULT_RUN_TIMEOUT_MS, hangError, hangOf, withDeadline } from "./Deadline.ts"
import { checkingDeterminism } from "./Determinism.ts"
import { HarnessError, InvalidOptionsError } from "./errors.ts"
import { type DivergentTrace, divergentRequirement, type ExecuteScenario, type FirstFailure, searchScenarios, type SearchOutcome, shrinkFailure } from "./FailureSearch.ts"
import { interleavingGuarantee } from "./PctBound.ts"
import type { ExecutionTrace, Json, PropertyDefinition } from "./Property.ts"
import { checksum32, encodeReplayToken } from "./ReplayToken.ts"
import { withRunEnvironment } from "./RunEnvironment.ts"
import type { Counterexample, FailedPropertyRun, PropertyRun, PropertyRunBase } from "./RunResult.ts"
import { type Shard, shardFactsRecorder, shardRunCount } from "./Shard.ts"
import { SUITE_VERSION } from "./SuiteVersion.ts"
import { withSortedKeys } from "./CodeUnitOrder.ts"

/** Default wall-clock limit of each phase of one scenario (measured; see `harness/Deadline.ts`). */
export { DEFAULT_RUN_TIMEOUT_MS } from "./Deadline.ts"

/** Most runs one property run may ask for. */
export const MAX_RUNS = 100_000

/** Progress of one property run, for the CLI's progress line. */
export interface RunProgress {
  readonly propertyId: string
  readonly adapter: string
  /** Scenarios of the budget started so far (shrink candidates not counted). */
  readonly runsDone: number
  readonly runsTotal: number
  readonly phase: "generating" | "shrinking"
  /** While shrinking: the requirement whose counterexample is being minimized. */
  readonly requirementId?: string
}

/** Options of `runProperty`. */
export interface RunPropertyOptions {
  readonly property: PropertyDefinition<any>
  readonly adapter: StorageAdapter
  /** fast-check seed (a 32-bit integer). */
  readonly seed: number
  /** Generated scenarios to run (1..MAX_RUNS). */
  readonly runs: number
  /** Wall-clock budget for the whole property run; when it runs out first the verdict is `unknown`. */
  readonly timeLimitMs?: number
  /** Wall-clock limit of one scenario; past it the adapter is declared hung (verdict `error`). */
  readonly runTimeoutMs?: number
  readonly onProgress?: (progress: RunProgress) => void
  /** Called as each scenario enters a phase (`open`, `scenario`, `close`): a watchdog outside can name it. */
  readonly onPhase?: (phase: AdapterPhase) => void
  /** Called once when the adapter hangs (the run then ends with verdict `error`). */
  readonly onHang?: (hang: AdapterHang) => void
  /**
   * Detection measurements only: stop once this many distinct requirements failed. The run has then
   * not spent its budget, so every requirement it did not fail stays `unknown`, never `pass`.
   */
  readonly stopAfterFailures?: number
  /** Run every scenario twice and end the run with verdict `error` at the first difference (`Determinism.ts`). */
  readonly checkDeterminism?: boolean
  /**
   * Execute only this shard's scenarios (`Shard.ts`): `runsRequested` is then the shard's share of
   * `runs`, and the run carries `shardFacts` for `merge-reports`.
   */
  readonly shard?: Shard
}

/** Capabilities the property needs that the adapter lacks. */
export const missingCapabilities = (property: PropertyDefinition<any>, adapter: StorageAdapter): ReadonlyArray<CapabilityName> =>
  property.needs.filter((name) => !hasCapability(adapter.capabilities, name))

/** The `Random` seed of a scenario: derived from its bytes, so replaying the scenario replays its ids. */
export const scenarioRandomSeed = (scenario: Json): number => Number.parseInt(checksum32(JSON.stringify(scenario)), 16) | 0

const describeCause = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (error instanceof Error) return `${error.name}: ${error.message}`
  if (typeof error === "object" && error !== null && "message" in error) return String((error as { message: unknown }).message)
  return String(error)
}

/** Hooks of `executeScenario`. */
export interface ExecuteHooks {
  /** Called as the scenario enters each phase. */
  readonly onPhase?: (phase: AdapterPhase) => void
}

const adapterFailure = (property: PropertyDefinition<any>, adapter: StorageAdapter, cause: Cause.Cause<unknown>): HarnessError => {
  const failure = Cause.squash(cause)
  if (failure instanceof HarnessError) return failure
  return new HarnessError({
    message: `adapter ${adapter.name} failed while running ${property.id}: ${describeCause(cause)}`,
    hint: "the adapter threw or its engine broke; rerun with --verbose for the stack",
    cause: failure
  })
}

/**
 * Executes one scenario of `property` on a fresh database of `adapter`, under the deterministic run
 * environment. Each phase (`open`, the scenario's operations, `close`: releasing the database) gets
 * `runTimeoutMs` of wall-clock time (`withDeadline`). Fails with `HarnessError` when the adapter throws
 * or hangs; a hang carries `hang` naming the phase. After a hang the scope is closed in the background,
 * never waited for.
 */
export const executeScenario = (
  property: PropertyDefinition<any>,
  adapter: StorageAdapter,
  scenario: Json,
  runTimeoutMs: number = DEFAULT_RUN_TIMEOUT_MS,
  hooks: ExecuteHooks = {}
): Effect.Effect<ExecutionTrace, HarnessError> =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const guard = <A, E>(phase: AdapterPhase, effect: Effect.Effect<A, E>) => {
      hooks.onPhase?.(phase)
      return withDeadline(effect, runTimeoutMs, () => hangError({ adapter: adapter.name, phase, timeoutMs: runTimeoutMs, propertyId: property.id }))
    }
    const ran = yield* Effect.exit(Effect.gen(function*() {
      const database = yield* guard("open", Scope.provide(scope)(adapter.open({ connections: property.connections ?? 1 })))
      const environment = { database, capabilities: adapter.capabilities, adapterName: adapter.name, dialect: adapter.dialect, requirements: property.requirements }
      return yield* guard("scenario", Scope.provide(scope)(withRunEnvironment(scenarioRandomSeed(scenario), property.execute(scenario, environment))))
    })).pipe(
      // Interrupted from outside (Ctrl-C): still release the database, within the same limit.
      Effect.onInterrupt(() => Effect.ignore(withDeadline(Scope.close(scope, Exit.void), runTimeoutMs, () => "hung")))
    )
    if (Exit.isFailure(ran) && hangOf(Cause.squash(ran.cause)) !== undefined) {
      yield* Effect.forkDetach(Scope.close(scope, ran))
      return yield* Effect.failCause(ran.cause)
    }
    const closed = yield* Effect.exit(guard("close", Scope.close(scope, ran)))
    if (Exit.isFailure(closed)) return yield* Effect.failCause(closed.cause)
    return yield* ran
  }).pipe(Effect.catchCause((cause) => Effect.fail(adapterFailure(property, adapter, cause))))

/**
 * Drops the parts of a failing scenario that never ran (commands after the divergence that shrinking
 * could not remove, e.g. the tail of a generated timeline), when the property knows how. The shorter
 * scenario is kept only if it diverges at the same step on the same requirement.
 */
const truncateToExecuted = (
  property: PropertyDefinition<any>,
  execute: ExecuteScenario,
  scenario: Json,
  trace: DivergentTrace
): Effect.Effect<{ readonly scenario: Json; readonly trace: DivergentTrace }, HarnessError> =>
  Effect.gen(function*() {
    const shorter = property.truncate?.(scenario, trace)
    if (shorter === undefined || JSON.stringify(shorter) === JSON.stringify(scenario)) return { scenario, trace }
    const shorterTrace = yield* execute(shorter)
    const same = shorterTrace.divergence !== null &&
      shorterTrace.divergence.requirementId === trace.divergence.requirementId &&
      shorterTrace.divergence.stepIndex === trace.divergence.stepIndex
    return same ? { scenario: shorter, trace: shorterTrace as DivergentTrace } : { scenario, trace }
  })

const validate = (options: RunPropertyOptions): InvalidOptionsError | undefined => {
  if (!Number.isSafeInteger(options.runs) || options.runs < 1 || options.runs > MAX_RUNS) {
    return new InvalidOptionsError({ message: `runs must be an integer from 1 to ${MAX_RUNS}, got ${options.runs}`, hint: "pass --runs N" })
  }
  if (!Number.isInteger(options.seed) || options.seed < -0x80000000 || options.seed > 0x7fffffff) {
    return new InvalidOptionsError({ message: `seed must be a 32-bit integer, got ${options.seed}`, hint: "pass --seed S with -2147483648 <= S <= 2147483647" })
  }
  if (options.stopAfterFailures !== undefined && !(Number.isSafeInteger(options.stopAfterFailures) && options.stopAfterFailures >= 1)) {
    return new InvalidOptionsError({ message: `stopAfterFailures must be a positive integer, got ${options.stopAfterFailures}`, hint: "omit it to search the whole budget" })
  }
  if (options.timeLimitMs !== undefined && !(options.timeLimitMs > 0)) {
    return new InvalidOptionsError({ message: `time limit must be positive, got ${options.timeLimitMs}`, hint: "omit it or pass a positive number of ms" })
  }
  return undefined
}

/** Everything minimizing one failure needs. */
interface MinimizeContext {
  readonly property: PropertyDefinition<any>
  readonly adapter: StorageAdapter
  readonly arbitrary: fc.Arbitrary<Json>
  readonly seed: number
  /** Executes one scenario under the run's deadlines. */
  readonly execute: ExecuteScenario
  /** Wall-clock deadline (epoch ms) of the whole property run, when it has a time limit. */
  readonly deadlineMs: number | undefined
  readonly onShrinkCandidate: (requirementId: string) => void
}

const nonDeterministic = (property: PropertyDefinition<any>, requirementId: string): HarnessError =>
  new HarnessError({
    message: `the minimized counterexample of ${property.id} for ${requirementId} did not fail again on ${requirementId} when re-executed: the implementation or adapter is non-deterministic`,
    hint: "make sure time comes only from Clock, randomness only from Random, and no state survives between runs"
  })

/**
 * Shrinks one failed requirement's first scenario on that requirement, re-executes the smallest one to
 * record its trace (refusing one that does not fail the same way again), drops the commands that never
 * ran, and bundles it as a replayable counterexample.
 */
const minimizeFailure = (context: MinimizeContext, failure: FirstFailure): Effect.Effect<Counterexample, HarnessError> =>
  Effect.gen(function*() {
    const { property, adapter, execute } = context
    const shrunk = yield* shrinkFailure({
      arbitrary: context.arbitrary,
      execute,
      seed: context.seed,
      ...(context.deadlineMs === undefined ? {} : { timeLimitMs: context.deadlineMs - Date.now() }),
      onCandidate: () => context.onShrinkCandidate(failure.requirementId)
    }, failure)
    if (shrunk === undefined) return yield* nonDeterministic(property, failure.requirementId)
    const shrunkTrace = yield* execute(shrunk.scenario)
    if (shrunkTrace.divergence === null || divergentRequirement(shrunkTrace.divergence) !== failure.requirementId) {
      return yield* nonDeterministic(property, failure.requirementId)
    }
    const { scenario, trace } = yield* truncateToExecuted(property, execute, shrunk.scenario, { ...shrunkTrace, divergence: shrunkTrace.divergence })
    const counterexample: Counterexample = {
      propertyId: property.id,
      scenario,
      trace,
      divergence: trace.divergence,
      seed: context.seed,
      path: shrunk.path,
      replayToken: encodeReplayToken({
        suiteVersion: SUITE_VERSION,
        propertyId: property.id,
        implementation: property.implementation ?? "reference",
        adapter: adapter.name,
        seed: context.seed,
        path: shrunk.path,
        scenario
      }),
      runsToDetect: failure.index + 1,
      shrinkSteps: shrunk.shrinkSteps
    }
    return counterexample
  })

const sortedRecord = (counts: ReadonlyMap<string, number>): Readonly<Record<string, number>> => withSortedKeys(Object.fromEntries(counts))

/** The verdict of a search with no infrastructure error: fail with every counterexample, else pass or unknown. */
const concludeSearch = (
  base: PropertyRunBase,
  search: SearchOutcome,
  counterexamples: ReadonlyArray<Counterexample>
): PropertyRun => {
  const [first, ...rest] = counterexamples
  if (first === undefined) return { ...base, verdict: search.runsExecuted < base.runsRequested ? "unknown" : "pass" }
  const failed: FailedPropertyRun = {
    ...base,
    verdict: "fail",
    counterexamples: [first, ...rest],
    knownFailures: sortedRecord(new Map(counterexamples.map((cx) => [cx.divergence.requirementId, search.knownFailures.get(cx.divergence.requirementId) ?? 0]))),
    ...(search.beyondBound.size === 0 ? {} : { failuresBeyondBound: sortedRecord(search.beyondBound) })
  }
  return failed
}

/**
 * `execute` that, once a scenario hung, fails every later scenario at once with that same hang: the
 * adapter is not trusted after a hang, and shrinking must not wait out one deadline per candidate.
 */
const stickyAfterHang = (execute: ExecuteScenario): ExecuteScenario => {
  let hung: HarnessError | undefined
  return (scenario) =>
    hung !== undefined
      ? Effect.fail(hung)
      : Effect.tapError(execute(scenario), (error) => Effect.sync(() => {
        if (error.hang !== undefined) hung ??= error
      }))
}

/**
 * The backstop deadline of a hosted property run, whose scenarios the host bounds itself (one
 * `runTimeoutMs` per phase): twice as many scenario deadlines as the budget has scenarios, plus one
 * adapter lifecycle limit. Only a host that stopped answering altogether ever reaches it.
 */
export const hostedRunDeadlineMs = (runs: number, runTimeoutMs: number = DEFAULT_RUN_TIMEOUT_MS): number =>
  2 * runs * runTimeoutMs + adapterLifecycleTimeoutMs(runTimeoutMs)

/** A property run of `adapter.host`, delegated whole to where the adapter's databases live. */
const runHosted = (options: RunPropertyOptions, host: NonNullable<StorageAdapter["host"]>, errorRun: (error: HarnessError | { readonly message: string; readonly hint: string }) => PropertyRun) =>
  withDeadline(host.runProperty({
    propertyId: options.property.id,
    implementation: options.property.implementation ?? "reference",
    seed: options.seed,
    runs: options.runs,
    ...(options.timeLimitMs === undefined ? {} : { timeLimitMs: options.timeLimitMs }),
    ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs }),
    ...(options.stopAfterFailures === undefined ? {} : { stopAfterFailures: options.stopAfterFailures }),
    ...(options.checkDeterminism === true ? { checkDeterminism: true } : {}),
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress })
  }), hostedRunDeadlineMs(options.runs, options.runTimeoutMs), () =>
    hangError({ adapter: options.adapter.name, phase: "scenario", timeoutMs: hostedRunDeadlineMs(options.runs, options.runTimeoutMs), propertyId: options.property.id })).pipe(
    // A host that broke (the object was reset, the runtime died) is an infrastructure error of this
    // property run, reported as verdict `error`, not a failure of the whole conformance run.
    Effect.catch((error) => Effect.succeed(errorRun(error)))
  )

/**
 * Runs one property on one adapter and returns its structured result: the whole budget is searched,
 * then each distinct failed requirement (at most `MAX_COUNTEREXAMPLES_PER_RUN`) is minimized.
 */
export const runProperty = Effect.fn("runProperty")(function*(options: RunPropertyOptions) {
  const invalid = validate(options)
  if (invalid !== undefined) return yield* invalid
  const { property, adapter, seed, runs, shard } = options
  const startedMs = Date.now()
  const recorder = shard === undefined ? undefined : shardFactsRecorder()
  const base = (runsExecuted: number, covered: PropertyRunBase["covered"], situations?: ReadonlyMap<string, number>): PropertyRunBase => ({
    propertyId: property.id,
    subject: property.subject,
    adapter: adapter.name,
    seed,
    runsRequested: shard === undefined ? runs : shardRunCount(shard, runs),
    runsExecuted,
    durationMs: Date.now() - startedMs,
    covered,
    ...(situations === undefined || situations.size === 0 ? {} : { situations: sortedRecord(situations) }),
    ...(property.interleaving === undefined ? {} : { interleaving: interleavingGuarantee(property.interleaving, situations === undefined ? undefined : Object.fromEntries(situations)) }),
    ...(recorder === undefined ? {} : { shardFacts: recorder.facts() })
  })
  const missing = missingCapabilities(property, adapter)
  if (missing.length > 0) {
    const notApplicable: PropertyRun = { ...base(0, {}), durationMs: 0, verdict: "not-applicable", missingCapabilities: missing }
    return notApplicable
  }
  if (adapter.host !== undefined) {
    return yield* runHosted(options, adapter.host, (error) => {
      const hang = hangOf(error)
      if (hang !== undefined) options.onHang?.(hang)
      return { ...base(0, {}), verdict: "error", error: { message: error.message, hint: error.hint } }
    })
  }
  const runTimeoutMs = options.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS
  const executeOnce: ExecuteScenario = (scenario) => executeScenario(property, adapter, scenario, runTimeoutMs, options.onPhase === undefined ? {} : { onPhase: options.onPhase })
  const execute = stickyAfterHang(options.checkDeterminism === true ? checkingDeterminism(executeOnce) : executeOnce)
  const arbitrary = property.scenario(adapter.capabilities) as fc.Arbitrary<Json>
  const report = (phase: RunProgress["phase"], runsDone: number, requirementId?: string) =>
    options.onProgress?.({ propertyId: property.id, adapter: adapter.name, runsDone, runsTotal: shard === undefined ? runs : shardRunCount(shard, runs), phase, ...(requirementId === undefined ? {} : { requirementId }) })
  const search = yield* searchScenarios({
    arbitrary,
    execute,
    seed,
    runs,
    ...(options.timeLimitMs === undefined ? {} : { timeLimitMs: options.timeLimitMs }),
    onScenario: (runsDone) => report("generating", runsDone),
    ...(shard === undefined || recorder === undefined ? {} : { shard, onExecuted: recorder.record }),
    ...(options.stopAfterFailures === undefined ? {} : { stopAfterFailures: options.stopAfterFailures })
  })
  const errorRun = (error: HarnessError): PropertyRun => {
    if (error.hang !== undefined) options.onHang?.(error.hang)
    return { ...base(search.runsExecuted, sortedRecord(search.covered), search.situations), verdict: "error", error: { message: error.message, hint: error.hint } }
  }
  if (search.infrastructureError !== undefined) return errorRun(search.infrastructureError)
  const context: MinimizeContext = {
    property, adapter, arbitrary, seed, execute,
    deadlineMs: options.timeLimitMs === undefined ? undefined : startedMs + options.timeLimitMs,
    onShrinkCandidate: (requirementId) => report("shrinking", search.runsExecuted, requirementId)
  }
  const minimized = yield* Effect.forEach(search.firstFailures, (failure) => minimizeFailure(context, failure)).pipe(Effect.result)
  if (minimized._tag === "Failure") return errorRun(minimized.failure)
  return concludeSearch(base(search.runsExecuted, sortedRecord(search.covered), search.situations), search, minimized.success)
})
