/**
 * Liveness: checking that the good thing eventually happens, not only that no bad thing does.
 *
 * Safety checks compare every step with the model; a bug that only loses work (a timer never
 * re-armed, a wake never re-delivered, a retry that spins forever) shows no wrong value at any step.
 * So after a scenario's fault window closes, a subject runs its system to quiescence under virtual
 * time and then evaluates its liveness predicates. This module is the generic part, for any subject:
 *
 * - a `QuiescenceDriver` performs one bounded round toward quiescence (advance the virtual clock,
 *   retry calls whose reply was lost, deliver a platform alarm, restart and sweep: the subject
 *   decides) and says whether anything happened in it;
 * - `runToQuiescence` runs rounds until `quietRounds` consecutive rounds saw no activity, at most
 *   `maxRounds` rounds (an explicit bound: a system still busy then is itself a liveness failure);
 * - each `LivenessPredicate` reads the observed end state and lists its violations (expected: none);
 * - `livenessStep` packs the outcome into one `ExecutedStep` of the model-based loop, so a failure is
 *   a `Divergence` attributed to a requirement through the subject's rules, with a counterexample and a
 *   replay token like any other.
 *
 * @example
 * ```ts
 * // in a subject's step for its final "liveness" command:
 * return yield* livenessStep({
 *   driver: { round: () => advanceAndSettle(10_000) },
 *   options: { maxRounds: 12, quietRounds: 4 },
 *   observe: readEndState,
 *   predicates: [{ observable: "due clocks not fired", rules: ["L1"], why: "...", violations: (s) => s.dueUnfired }],
 *   stalledRules: ["L3"],
 *   atMs
 * })
 * ```
 */
import { Effect } from "effect"
import type { ExecutedStep } from "./ModelBased.ts"
import type { Json } from "./Property.ts"
import type { HarnessError } from "./errors.ts"

/** What one round toward quiescence did. */
export interface RoundOutcome {
  /** True when the round saw activity (storage transactions, records, resumes, dispatches ...). */
  readonly active: boolean
  /** A few words for the trace, e.g. `advanced 10 s: 2 transactions`. */
  readonly note: string
}

/** A subject's side of the run to quiescence. */
export interface QuiescenceDriver {
  /** Performs round `index` (from 0). */
  readonly round: (index: number) => Effect.Effect<RoundOutcome, HarnessError>
}

/** Bounds of `runToQuiescence`. */
export interface QuiescenceOptions {
  /** Hard bound on rounds. */
  readonly maxRounds: number
  /** Consecutive inactive rounds that count as quiescence (>= 1). */
  readonly quietRounds: number
}

/** How the run to quiescence ended. */
export interface QuiescenceOutcome {
  readonly quiescent: boolean
  readonly rounds: number
  /** One note per round. */
  readonly notes: ReadonlyArray<string>
}

/** Runs rounds until `quietRounds` consecutive inactive ones, at most `maxRounds`. */
export const runToQuiescence = (driver: QuiescenceDriver, options: QuiescenceOptions): Effect.Effect<QuiescenceOutcome, HarnessError> =>
  Effect.gen(function*() {
    if (!Number.isInteger(options.maxRounds) || options.maxRounds < 1) throw new RangeError("maxRounds must be an integer >= 1")
    if (!Number.isInteger(options.quietRounds) || options.quietRounds < 1) throw new RangeError("quietRounds must be an integer >= 1")
    const notes: Array<string> = []
    let quiet = 0
    for (let index = 0; index < options.maxRounds; index++) {
      const outcome = yield* driver.round(index)
      notes.push(outcome.note)
      quiet = outcome.active ? 0 : quiet + 1
      if (quiet >= options.quietRounds) return { quiescent: true, rounds: index + 1, notes }
    }
    return { quiescent: false, rounds: options.maxRounds, notes }
  })

/** One liveness predicate over the observed end state `O`. */
export interface LivenessPredicate<O> {
  /** The observable in the witness sentence, e.g. `clocks whose deadline passed but never fired`. */
  readonly observable: string
  /** Reference rules deciding it (attribution picks the requirement citing most of them). */
  readonly rules: ReadonlyArray<string>
  /** Why none is expected, in words. */
  readonly why: string
  /** The violations in the end state (expected: none). */
  readonly violations: (observed: O) => ReadonlyArray<Json>
}

/** Everything `livenessStep` needs. */
export interface LivenessStepOptions<O> {
  readonly driver: QuiescenceDriver
  readonly options: QuiescenceOptions
  readonly observe: Effect.Effect<O, HarnessError>
  readonly predicates: ReadonlyArray<LivenessPredicate<O>>
  /** Rules of "the system did not become quiescent within the bound" (e.g. a spinning timer). */
  readonly stalledRules: ReadonlyArray<string>
  /** Virtual time when the phase starts. */
  readonly atMs: number
  /** Requirement ids the phase reaches (coverage). */
  readonly covered: ReadonlyArray<string>
  /** Observed end state for the trace (defaults to nothing). */
  readonly stateJson?: (observed: O) => Json
}

/**
 * Runs to quiescence and checks the predicates, as one step of the model-based loop: the first
 * check is quiescence itself, then each predicate (expected: no violations).
 */
export const livenessStep = <O>(options: LivenessStepOptions<O>): Effect.Effect<ExecutedStep, HarnessError> =>
  Effect.gen(function*() {
    const outcome = yield* runToQuiescence(options.driver, options.options)
    const observed = yield* options.observe
    const stalled = {
      observable: "quiescence",
      expected: { quiescent: true } as Json,
      actual: { quiescent: outcome.quiescent, rounds: outcome.rounds, notes: outcome.notes.slice(-options.options.quietRounds) } as Json,
      rules: options.stalledRules,
      why: `the system must go quiet within ${options.options.maxRounds} rounds (${options.options.quietRounds} quiet in a row) once faults stop`
    }
    const checks = [
      ...options.predicates.map((predicate) => ({
        observable: predicate.observable,
        expected: [] as Json,
        actual: predicate.violations(observed) as Json,
        rules: predicate.rules,
        why: predicate.why
      })),
      // A stalled system with every predicate holding still spins; checked after the predicates, so a
      // lost timer (a predicate) is named before the retries it may cause.
      outcome.quiescent ? { ...stalled, actual: { quiescent: true } as Json } : stalled
    ]
    const step: ExecutedStep = {
      record: {
        operation: "liveness",
        args: { maxRounds: options.options.maxRounds, quietRounds: options.options.quietRounds },
        virtualTimeMs: options.atMs,
        implementation: { quiescent: outcome.quiescent, rounds: outcome.rounds },
        model: { quiescent: true },
        ...(options.stateJson === undefined ? {} : { implementationState: options.stateJson(observed) })
      },
      checks,
      covered: options.covered,
      described: `running to quiescence (${outcome.rounds} rounds: ${outcome.notes.join("; ")})`
    }
    return step
  })
