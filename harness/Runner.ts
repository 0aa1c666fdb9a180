/**
 * The runner: one model-based property x one adapter x one seed x a budget of runs -> a structured
 * `PropertyRun` (verdict, minimized counterexample with its trace, seed, path, replay token, coverage).
 *
 * Every generated scenario runs on a fresh isolated database, under a fresh virtual clock and a
 * `Random` seeded from the scenario's own bytes, so the same scenario always executes the same way.
 * Infrastructure failures (an adapter that throws or hangs) are reported as `error`, never as a
 * requirement failure, and never shrunk.
 */
import { Cause, Effect, Exit } from "effect"
import * as fc from "fast-check"
import { type CapabilityName, hasCapability, type StorageAdapter } from "../adapters/contract.ts"
import { HarnessError, InvalidOptionsError } from "./errors.ts"
import type { Divergence, ExecutionTrace, Json, PropertyDefinition } from "./Property.ts"
import { checksum32, encodeReplayToken } from "./ReplayToken.ts"
import { withRunEnvironment } from "./RunEnvironment.ts"
import type { Counterexample, PropertyRun } from "./RunResult.ts"
import { SUITE_VERSION } from "./SuiteVersion.ts"

/** Default time one scenario may take on real (wall-clock) time before the adapter is declared hung: 60 s. */
export const DEFAULT_RUN_TIMEOUT_MS = 60_000

/** Most runs one property run may ask for. */
export const MAX_RUNS = 100_000

/** Progress of one property run, for the CLI's progress line. */
export interface RunProgress {
  readonly propertyId: string
  readonly adapter: string
  readonly runsDone: number
  readonly runsTotal: number
  readonly phase: "generating" | "shrinking"
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

/**
 * Executes one scenario of `property` on a fresh database of `adapter`, under the deterministic run
 * environment, with a wall-clock timeout. Fails with `HarnessError` when the adapter throws or hangs.
 */
export const executeScenario = (
  property: PropertyDefinition<any>,
  adapter: StorageAdapter,
  scenario: Json,
  runTimeoutMs: number = DEFAULT_RUN_TIMEOUT_MS
): Effect.Effect<ExecutionTrace, HarnessError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const database = yield* adapter.open({ connections: property.connections ?? 1 })
      return yield* withRunEnvironment(
        scenarioRandomSeed(scenario),
        property.execute(scenario, { database, capabilities: adapter.capabilities, adapterName: adapter.name, dialect: adapter.dialect })
      )
    })
  ).pipe(
    Effect.timeoutOrElse({
      duration: runTimeoutMs,
      orElse: () =>
        Effect.fail(
          new HarnessError({
            message: `adapter ${adapter.name} did not finish one scenario of ${property.id} within ${runTimeoutMs} ms`,
            hint: "the adapter hangs (a lock never released, a connection that never answers); fix it or raise --run-timeout"
          })
        )
    }),
    Effect.catchCause((cause) => {
      const failure = Cause.squash(cause)
      if (failure instanceof HarnessError) return Effect.fail(failure)
      return Effect.fail(
        new HarnessError({
          message: `adapter ${adapter.name} failed while running ${property.id}: ${describeCause(cause)}`,
          hint: "the adapter threw or its engine broke; rerun with --verbose for the stack",
          cause: failure
        })
      )
    })
  )

/**
 * Drops the parts of a failing scenario that never ran (commands after the divergence that shrinking
 * could not remove, e.g. the tail of a generated timeline), when the property knows how. The shorter
 * scenario is kept only if it diverges at the same step on the same requirement.
 */
const truncateToExecuted = (
  property: PropertyDefinition<any>,
  adapter: StorageAdapter,
  scenario: Json,
  trace: ExecutionTrace & { readonly divergence: Divergence },
  runTimeoutMs: number
): Effect.Effect<{ readonly scenario: Json; readonly trace: ExecutionTrace & { readonly divergence: Divergence } }, HarnessError> =>
  Effect.gen(function*() {
    const shorter = property.truncate?.(scenario, trace)
    if (shorter === undefined || JSON.stringify(shorter) === JSON.stringify(scenario)) return { scenario, trace }
    const shorterTrace = yield* executeScenario(property, adapter, shorter, runTimeoutMs)
    const same = shorterTrace.divergence !== null &&
      shorterTrace.divergence.requirementId === trace.divergence.requirementId &&
      shorterTrace.divergence.stepIndex === trace.divergence.stepIndex
    return same ? { scenario: shorter, trace: shorterTrace as ExecutionTrace & { readonly divergence: Divergence } } : { scenario, trace }
  })

const validate = (options: RunPropertyOptions): InvalidOptionsError | undefined => {
  if (!Number.isSafeInteger(options.runs) || options.runs < 1 || options.runs > MAX_RUNS) {
    return new InvalidOptionsError({ message: `runs must be an integer from 1 to ${MAX_RUNS}, got ${options.runs}`, hint: "pass --runs N" })
  }
  if (!Number.isInteger(options.seed) || options.seed < -0x80000000 || options.seed > 0x7fffffff) {
    return new InvalidOptionsError({ message: `seed must be a 32-bit integer, got ${options.seed}`, hint: "pass --seed S with -2147483648 <= S <= 2147483647" })
  }
  if (options.timeLimitMs !== undefined && !(options.timeLimitMs > 0)) {
    return new InvalidOptionsError({ message: `time limit must be positive, got ${options.timeLimitMs}`, hint: "omit it or pass a positive number of ms" })
  }
  return undefined
}

/** Runs one property on one adapter and returns its structured result. */
export const runProperty = Effect.fn("runProperty")(function*(options: RunPropertyOptions) {
  const invalid = validate(options)
  if (invalid !== undefined) return yield* invalid
  const { property, adapter, seed, runs } = options
  const startedMs = Date.now()
  const base = {
    propertyId: property.id,
    subject: property.subject,
    adapter: adapter.name,
    seed,
    runsRequested: runs
  }
  /** A run that ended in an infrastructure error (verdict `error`), never shrunk, never a requirement failure. */
  const errorRun = (error: { readonly message: string; readonly hint: string }, runsExecuted: number, covered: PropertyRun["covered"]): PropertyRun => ({
    ...base,
    runsExecuted,
    verdict: "error",
    durationMs: Date.now() - startedMs,
    covered,
    error: { message: error.message, hint: error.hint }
  })
  const missing = missingCapabilities(property, adapter)
  if (missing.length > 0) {
    const run: PropertyRun = { ...base, runsExecuted: 0, verdict: "not-applicable", durationMs: 0, covered: {}, missingCapabilities: missing }
    return run
  }
  if (adapter.host !== undefined) {
    return yield* adapter.host.runProperty({
      propertyId: property.id,
      implementation: property.implementation ?? "reference",
      seed,
      runs,
      ...(options.timeLimitMs === undefined ? {} : { timeLimitMs: options.timeLimitMs }),
      ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs })
    }).pipe(
      // A host that broke (the object was reset, the runtime died) is an infrastructure error of this
      // property run, reported as verdict `error`, not a failure of the whole conformance run.
      Effect.catch((error) => Effect.succeed(errorRun(error, 0, {})))
    )
  }

  const runTimeoutMs = options.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS
  const covered = new Map<string, number>()
  let generated = 0
  let shrinking = false
  let infrastructureError: HarnessError | undefined

  const predicate = async (scenario: Json): Promise<boolean> => {
    if (infrastructureError !== undefined) return true
    if (!shrinking) generated++
    options.onProgress?.({ propertyId: property.id, adapter: adapter.name, runsDone: generated, runsTotal: runs, phase: shrinking ? "shrinking" : "generating" })
    const exit = await Effect.runPromiseExit(executeScenario(property, adapter, scenario, runTimeoutMs))
    if (Exit.isFailure(exit)) {
      if (!shrinking) {
        const error = Cause.squash(exit.cause)
        infrastructureError = error instanceof HarnessError
          ? error
          : new HarnessError({ message: describeCause(exit.cause), hint: "rerun with --verbose for the stack" })
      }
      return true
    }
    const trace = exit.value
    if (!shrinking) for (const id of trace.covered) covered.set(id, (covered.get(id) ?? 0) + 1)
    if (trace.divergence !== null) {
      shrinking = true
      return false
    }
    return true
  }

  const details = yield* Effect.promise(() =>
    fc.check(fc.asyncProperty(property.scenario(adapter.capabilities), predicate), {
      seed,
      numRuns: runs,
      ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs })
    })
  )
  const coveredRecord = Object.fromEntries([...covered.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  const durationMs = Date.now() - startedMs

  if (infrastructureError !== undefined) return errorRun(infrastructureError, generated, coveredRecord)
  if (details.failed && details.counterexample !== null) {
    const shrunk = details.counterexample[0] as Json
    const shrunkTrace = yield* executeScenario(property, adapter, shrunk, runTimeoutMs)
    if (shrunkTrace.divergence === null) {
      return errorRun({
        message: `the minimized counterexample of ${property.id} did not fail again when re-executed: the implementation or adapter is non-deterministic`,
        hint: "make sure time comes only from Clock, randomness only from Random, and no state survives between runs"
      }, generated, coveredRecord)
    }
    const { scenario, trace } = yield* truncateToExecuted(property, adapter, shrunk, { ...shrunkTrace, divergence: shrunkTrace.divergence }, runTimeoutMs)
    const path = details.counterexamplePath ?? ""
    const counterexample: Counterexample = {
      propertyId: property.id,
      scenario,
      trace,
      divergence: trace.divergence,
      seed: details.seed,
      path,
      replayToken: encodeReplayToken({
        suiteVersion: SUITE_VERSION,
        propertyId: property.id,
        implementation: property.implementation ?? "reference",
        adapter: adapter.name,
        seed: details.seed,
        path,
        scenario
      }),
      runsToDetect: generated,
      shrinkSteps: details.numShrinks
    }
    const run: PropertyRun = { ...base, runsExecuted: generated, verdict: "fail", durationMs, covered: coveredRecord, counterexample }
    return run
  }
  if (details.failed) {
    // fast-check failed without a counterexample: the property threw outside any scenario.
    return yield* new HarnessError({
      message: `fast-check stopped ${property.id}: ${String(details.errorInstance)}`,
      hint: "the scenario generator of this property is broken; report it with the seed"
    })
  }
  const exhausted = details.interrupted && generated < runs
  const run: PropertyRun = {
    ...base,
    runsExecuted: generated,
    verdict: exhausted ? "unknown" : "pass",
    durationMs,
    covered: coveredRecord
  }
  return run
})
