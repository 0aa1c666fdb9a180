/**
 * The search behind a property run: generate the whole budget of scenarios, execute each, and keep
 * going after a failure. The first scenario that diverges on a requirement is that requirement's
 * failure; a later scenario diverging on the same requirement is "known" (it ends there, no new
 * report). Each distinct failed requirement is then minimized on its own (`minimizeFailure`): a shrink
 * candidate counts as smaller only when it still diverges on that same requirement.
 *
 * Scenarios come from fast-check with the run's seed, so the same seed generates the same scenarios;
 * the n-th scenario (from 0) is fast-check's path `n`, which is how shrinking finds it again.
 */
import { Cause, Effect, Exit } from "effect"
import * as fc from "fast-check"
import { HarnessError } from "./errors.ts"
import type { Divergence, ExecutionTrace, Json } from "./Property.ts"
import { MAX_COUNTEREXAMPLES_PER_RUN } from "./RunResult.ts"
import { inShard, type Shard } from "./Shard.ts"

/** Runs one scenario on a fresh database; fails with `HarnessError` when the adapter throws or hangs. */
export type ExecuteScenario = (scenario: Json) => Effect.Effect<ExecutionTrace, HarnessError>

/** A trace whose execution diverged. */
export type DivergentTrace = ExecutionTrace & { readonly divergence: Divergence }

/** The requirement a divergence names. */
export const divergentRequirement = (divergence: Divergence): string => divergence.requirementId

/** The first scenario that diverged on a requirement no earlier scenario had failed. */
export interface FirstFailure {
  readonly requirementId: string
  /** Position of the scenario in the generated sequence, from 0 (fast-check path `index`). */
  readonly index: number
  readonly scenario: Json
}

/** What searching the budget found. Maps are keyed by requirement ID. */
export interface SearchOutcome {
  readonly runsExecuted: number
  /** True when the time limit cut the search short. */
  readonly interrupted: boolean
  /** Scenarios that reached each requirement (its `covered` list, plus the requirement it diverged on). */
  readonly covered: ReadonlyMap<string, number>
  /** Scenarios that reached each of the model's named situations (`ExecutionTrace.situations`). */
  readonly situations: ReadonlyMap<string, number>
  /** In the order found; at most `MAX_COUNTEREXAMPLES_PER_RUN`. */
  readonly firstFailures: ReadonlyArray<FirstFailure>
  /** Further scenarios that diverged on a requirement of `firstFailures`. */
  readonly knownFailures: ReadonlyMap<string, number>
  /** Scenarios that diverged on requirements found after the bound was reached. */
  readonly beyondBound: ReadonlyMap<string, number>
  /** The first infrastructure failure; the search stops executing scenarios after it. */
  readonly infrastructureError: HarnessError | undefined
}

/** What `searchScenarios` needs. */
export interface SearchOptions {
  readonly arbitrary: fc.Arbitrary<Json>
  readonly execute: ExecuteScenario
  readonly seed: number
  readonly runs: number
  readonly timeLimitMs?: number
  /** Called before each scenario with the number of scenarios started so far (1-based). */
  readonly onScenario?: (runsDone: number) => void
  /**
   * Detection measurements only (known-bad tests, the bench): stop executing once this many distinct
   * requirements failed. The search then has not spent its budget, so nothing else it checks can pass.
   */
  readonly stopAfterFailures?: number
  /** Execute only this shard's scenarios (`Shard.ts`); the others hold without being executed. */
  readonly shard?: Shard
  /** Called after each executed scenario with its position and trace (`undefined` when the adapter broke). */
  readonly onExecuted?: (position: number, trace: ExecutionTrace | undefined) => void
}

const increment = (counts: Map<string, number>, key: string): void => {
  counts.set(key, (counts.get(key) ?? 0) + 1)
}

/** Mutable tallies of one search; `record` is the pure bookkeeping of one executed scenario. */
interface Tally {
  readonly covered: Map<string, number>
  readonly situations: Map<string, number>
  readonly firstFailures: Array<FirstFailure>
  readonly knownFailures: Map<string, number>
  readonly beyondBound: Map<string, number>
}

const record = (tally: Tally, trace: ExecutionTrace, index: number, scenario: Json): void => {
  const reached = new Set(trace.covered)
  if (trace.divergence !== null) reached.add(divergentRequirement(trace.divergence))
  for (const id of reached) increment(tally.covered, id)
  for (const situation of new Set(trace.situations ?? [])) increment(tally.situations, situation)
  if (trace.divergence === null) return
  const requirementId = divergentRequirement(trace.divergence)
  if (tally.firstFailures.some((failure) => failure.requirementId === requirementId)) {
    increment(tally.knownFailures, requirementId)
  } else if (tally.firstFailures.length < MAX_COUNTEREXAMPLES_PER_RUN) {
    tally.firstFailures.push({ requirementId, index, scenario })
  } else {
    increment(tally.beyondBound, requirementId)
  }
}

const toHarnessError = (cause: Cause.Cause<HarnessError>): HarnessError => {
  const error = Cause.squash(cause)
  return error instanceof HarnessError ? error : new HarnessError({ message: String(error), hint: "rerun with --verbose for the stack" })
}

/**
 * Executes the whole budget (or until the time limit), never stopping at a failure. Fails with
 * `HarnessError` only when the scenario generator itself is broken.
 *
 * @example
 * const outcome = yield* searchScenarios({ arbitrary, execute, seed: 7, runs: 60 })
 * outcome.firstFailures.map((failure) => failure.requirementId) // ["ALM-044", "ALM-006"]
 */
export const searchScenarios = (options: SearchOptions): Effect.Effect<SearchOutcome, HarnessError> =>
  Effect.gen(function*() {
    const tally: Tally = { covered: new Map(), situations: new Map(), firstFailures: [], knownFailures: new Map(), beyondBound: new Map() }
    let runsExecuted = 0
    let infrastructureError: HarnessError | undefined
    // Position in the generated sequence (fast-check's path); equals `runsExecuted` unless sharded.
    let generated = 0
    const visit = async (scenario: Json): Promise<boolean> => {
      const index = generated++
      if (options.shard !== undefined && !inShard(options.shard, index)) return true
      if (infrastructureError !== undefined) return true
      if (options.stopAfterFailures !== undefined && tally.firstFailures.length >= options.stopAfterFailures) return true
      runsExecuted++
      options.onScenario?.(runsExecuted)
      const exit = await Effect.runPromiseExit(options.execute(scenario))
      if (Exit.isFailure(exit)) infrastructureError = toHarnessError(exit.cause)
      else record(tally, exit.value, index, scenario)
      options.onExecuted?.(index, Exit.isFailure(exit) ? undefined : exit.value)
      // Never a fast-check failure: failures are tallied here and minimized one by one afterwards.
      return true
    }
    const details = yield* Effect.promise(() =>
      fc.check(fc.asyncProperty(options.arbitrary, visit), {
        seed: options.seed,
        numRuns: options.runs,
        ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs })
      })
    )
    if (details.failed) {
      return yield* new HarnessError({
        message: `fast-check stopped the search: ${String(details.errorInstance)}`,
        hint: "the scenario generator of this property is broken; report it with the seed"
      })
    }
    const outcome: SearchOutcome = { ...tally, runsExecuted, interrupted: details.interrupted, infrastructureError }
    return outcome
  })

/** A failure shrunk on its own requirement: the smallest scenario found and how fast-check got there. */
export interface ShrunkFailure {
  readonly scenario: Json
  /** fast-check path of the minimized scenario (`index:shrink:steps`), informational. */
  readonly path: string
  readonly shrinkSteps: number
}

/** What `shrinkFailure` needs besides the failure. */
export interface ShrinkOptions {
  readonly arbitrary: fc.Arbitrary<Json>
  readonly execute: ExecuteScenario
  readonly seed: number
  /** Wall-clock time left for this shrink; past it the smallest scenario so far is kept. */
  readonly timeLimitMs?: number
  readonly onCandidate?: () => void
}

/**
 * Shrinks `failure` with fast-check from its place in the generated sequence (path `index`). The
 * predicate fails only when a candidate diverges on the failure's own requirement: a candidate that
 * holds, diverges on another requirement, or breaks the adapter is not a smaller counterexample.
 * `undefined` when the scenario no longer fails (non-determinism) and the time limit did not interrupt.
 */
export const shrinkFailure = (options: ShrinkOptions, failure: FirstFailure): Effect.Effect<ShrunkFailure | undefined> =>
  Effect.gen(function*() {
    const holds = async (scenario: Json): Promise<boolean> => {
      options.onCandidate?.()
      const exit = await Effect.runPromiseExit(options.execute(scenario))
      if (Exit.isFailure(exit) || exit.value.divergence === null) return true
      return divergentRequirement(exit.value.divergence) !== failure.requirementId
    }
    const details = yield* Effect.promise(() =>
      fc.check(fc.asyncProperty(options.arbitrary, holds), {
        seed: options.seed,
        path: String(failure.index),
        numRuns: 1,
        ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: Math.max(1, options.timeLimitMs) })
      })
    )
    if (details.failed && details.counterexample !== null) {
      return { scenario: details.counterexample[0] as Json, path: details.counterexamplePath ?? String(failure.index), shrinkSteps: details.numShrinks }
    }
    // Out of time before the first re-execution: keep the failure as found, unshrunk.
    if (details.interrupted) return { scenario: failure.scenario, path: String(failure.index), shrinkSteps: 0 }
    return undefined
  })
