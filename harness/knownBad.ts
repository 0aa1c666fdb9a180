/**
 * The known-bad kit: deliberately broken implementations a conformance suite must catch, built
 * generically over any subject whose shipped implementation is assembled from named pieces.
 *
 * A known-bad is a declaration: the shipped pieces with exactly one swapped for a bug, the bug in one
 * line, and the requirements the bug really breaks. The kit builds the implementation, checks that
 * exactly one piece was swapped (purity), runs the subject's properties on an adapter until one fails
 * (the caught-loop), and checks that every reported requirement is among those the bug breaks.
 * Vendors and implementation authors use it the same way on their own pieces.
 *
 * @example
 * ```ts
 * const kit: PieceKit<AlarmPieces, AlarmsImplementation> = {
 *   defaults: defaultAlarmPieces,
 *   build: (name, pieces) => ({ name, make: makeAlarmScheduler(pieces) })
 * }
 * const bad = buildKnownBad(kit, {
 *   name: "h4-detached-after-pass",
 *   bug: "H4: a fiber forked by a handler can still schedule after the pass ended",
 *   pieces: { passAllowsSchedule: () => true },
 *   breaks: ["ALM-009", "ALM-048"]
 * })
 * const caught = yield* catchKnownBad({ suite: alarmsSuite(bad.implementation), adapter })
 * misattributed(bad, caught.counterexamples) // [] when attribution is right
 * ```
 */
import { Effect } from "effect"
import type { StorageAdapter } from "../adapters/contract.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "./Budget.ts"
import { propertySeed } from "./Conformance.ts"
import type { Divergence, PropertyDefinition } from "./Property.ts"
import type { Counterexample, PropertyRun } from "./RunResult.ts"
import { runProperty } from "./Runner.ts"
import type { SubjectImplementation } from "./SubjectPlugin.ts"
import { propertyById, type SubjectSuite } from "./Suite.ts"

/** Prefix of a known-bad implementation's name in reports: `known-bad/<name>`. */
export const KNOWN_BAD_PREFIX = "known-bad/"

/** One known-bad implementation, declared. */
export interface KnownBad<Pieces> {
  /** Stable name, e.g. `h1-content-ack`; the implementation is named `known-bad/<name>`. */
  readonly name: string
  /** The bug in one line, citing the reference page's H-number when it is historical. */
  readonly bug: string
  /** The one swapped piece: `{ [piece]: replacement }` (the kit refuses zero or several). */
  readonly pieces: Partial<Pieces>
  /**
   * The requirement IDs the bug really violates, read from the reference page's rules. More than one
   * where attribution is legitimately ambiguous; a suite must report only these.
   */
  readonly breaks: ReadonlyArray<string>
}

/** How a subject builds an implementation from its pieces. */
export interface PieceKit<Pieces, Implementation extends SubjectImplementation> {
  /** The shipped (correct) pieces. */
  readonly defaults: Pieces
  /** Builds an implementation named `name` from a complete set of pieces. */
  readonly build: (name: string, pieces: Pieces) => Implementation
}

/** A known-bad with its complete pieces and the implementation built from them. */
export interface BuiltKnownBad<Pieces, Implementation extends SubjectImplementation> extends KnownBad<Pieces> {
  /** The name of the one swapped piece. */
  readonly swappedPiece: string
  /** The complete pieces: the defaults with the one piece swapped. */
  readonly allPieces: Pieces
  readonly implementation: Implementation
}

/**
 * What is wrong with a known-bad's pieces, in words; empty when it is pure: the override names exactly
 * one piece the defaults have, its replacement differs from the default, and every other piece of the
 * complete set is the default itself (same reference) with no piece added or missing.
 *
 * @example purityProblems(kit.defaults, { acknowledge: myAck }, { ...kit.defaults, acknowledge: myAck }) // []
 */
export const purityProblems = <Pieces extends object>(defaults: Pieces, override: Partial<Pieces>, allPieces: Pieces): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const defaultRecord = defaults as Readonly<Record<string, unknown>>
  const allRecord = allPieces as Readonly<Record<string, unknown>>
  const swapped = Object.keys(override)
  if (swapped.length !== 1) problems.push(`swaps ${swapped.length} pieces (${swapped.join(", ") || "none"}); a known-bad swaps exactly one`)
  for (const piece of swapped) {
    if (!(piece in defaultRecord)) problems.push(`swaps ${piece}, which the shipped pieces do not have`)
    else if ((override as Readonly<Record<string, unknown>>)[piece] === defaultRecord[piece]) problems.push(`swaps ${piece} for the shipped piece itself`)
  }
  const keys = new Set([...Object.keys(defaultRecord), ...Object.keys(allRecord)])
  for (const piece of keys) {
    if (!(piece in allRecord)) problems.push(`misses piece ${piece}`)
    else if (!(piece in defaultRecord)) problems.push(`adds piece ${piece}`)
    else if (!swapped.includes(piece) && allRecord[piece] !== defaultRecord[piece]) problems.push(`changes ${piece} besides the swapped piece`)
  }
  return problems
}

/**
 * Builds a known-bad implementation: the subject's shipped pieces with the declaration's one piece
 * swapped, named `known-bad/<name>`. Throws when the declaration is not pure or declares no broken
 * requirement (programming errors in the suite's own tests).
 */
export const buildKnownBad = <Pieces extends object, Implementation extends SubjectImplementation>(
  kit: PieceKit<Pieces, Implementation>,
  declaration: KnownBad<Pieces>
): BuiltKnownBad<Pieces, Implementation> => {
  const allPieces: Pieces = { ...kit.defaults, ...declaration.pieces }
  const problems = purityProblems(kit.defaults, declaration.pieces, allPieces)
  if (problems.length > 0) throw new Error(`known-bad ${declaration.name}: ${problems.join("; ")}`)
  if (declaration.breaks.length === 0) throw new Error(`known-bad ${declaration.name}: declare the requirements its bug breaks`)
  return {
    ...declaration,
    swappedPiece: Object.keys(declaration.pieces)[0]!,
    allPieces,
    implementation: kit.build(`${KNOWN_BAD_PREFIX}${declaration.name}`, allPieces)
  }
}

/** The counterexamples a run reports: every one of a failed run (one per failed requirement), else none. */
export const reportedCounterexamples = (run: PropertyRun): ReadonlyArray<Counterexample> => {
  if (run.verdict !== "fail") return []
  // A run recorded before `PropertyRun` became a union carried a single optional `counterexample`.
  const legacy = (run as { readonly counterexample?: Counterexample }).counterexample
  return Array.isArray(run.counterexamples) ? run.counterexamples : legacy === undefined ? [] : [legacy]
}

/** Options of `catchKnownBad`. */
export interface CatchOptions {
  /** The subject's suite bound to the known-bad implementation. */
  readonly suite: SubjectSuite
  readonly adapter: StorageAdapter
  /** Scenarios per property (default: the gate's `DEFAULT_RUNS`). */
  readonly runs?: number
  /** Base seed; each property gets `propertySeed(baseSeed, property, adapter)` (default: the gate's). */
  readonly baseSeed?: number
  /** Property ids in the order to try them (default: the suite's order); others are not tried. */
  readonly propertyOrder?: ReadonlyArray<string>
  /**
   * Stop each property once this many distinct requirements failed (default: search the whole budget
   * and check every counterexample). Detection only: the run certifies nothing.
   */
  readonly stopAfterFailures?: number
}

/** What the caught-loop found. */
export interface CatchResult {
  /** A property failed. */
  readonly caught: boolean
  /** The run that failed, or broke (verdict `error`), or else the last run tried. */
  readonly run: PropertyRun
  /** Property ids tried, in order. */
  readonly propertiesTried: ReadonlyArray<string>
  /** Scenarios run until the first failing one: earlier properties' whole runs plus the failing run's. */
  readonly runsToDetect: number
  /** Every counterexample of the failing run (one per failed requirement); empty when not caught. */
  readonly counterexamples: ReadonlyArray<Counterexample>
  /** Wall time of the properties tried. */
  readonly durationMs: number
}

const orderedProperties = (suite: SubjectSuite, order: ReadonlyArray<string> | undefined): ReadonlyArray<PropertyDefinition<any>> =>
  order === undefined
    ? suite.properties
    : order.map((id) => propertyById(suite, id))

/**
 * The caught-loop: runs the suite's properties in order on `adapter` at the budget until one fails
 * (or breaks), and returns that run with its counterexamples.
 */
export const catchKnownBad = (options: CatchOptions) =>
  Effect.gen(function*() {
    const properties = orderedProperties(options.suite, options.propertyOrder)
    if (properties.length === 0) throw new Error(`suite ${options.suite.subject} has no property to try`)
    const startedMs = performance.now()
    const tried: Array<string> = []
    let runsBefore = 0
    let last: PropertyRun | undefined
    for (const property of properties) {
      const seed = propertySeed(options.baseSeed ?? DEFAULT_SEED, property.id, options.adapter.name)
      last = yield* runProperty({
        property,
        adapter: options.adapter,
        seed,
        runs: options.runs ?? DEFAULT_RUNS,
        ...(options.stopAfterFailures === undefined ? {} : { stopAfterFailures: options.stopAfterFailures })
      })
      tried.push(property.id)
      if (last.verdict === "fail" || last.verdict === "error") break
      runsBefore += last.runsExecuted
    }
    const run = last!
    const counterexamples = reportedCounterexamples(run)
    const firstRunsToDetect = Math.min(...counterexamples.map((counterexample) => counterexample.runsToDetect))
    const result: CatchResult = {
      caught: counterexamples.length > 0,
      run,
      propertiesTried: tried,
      runsToDetect: counterexamples.length > 0 ? runsBefore + firstRunsToDetect : runsBefore + run.runsExecuted,
      counterexamples,
      durationMs: Math.round(performance.now() - startedMs)
    }
    return result
  })

/** One reported requirement that the known-bad's bug does not break. */
export interface Misattribution {
  readonly knownBad: string
  readonly propertyId: string
  /** The requirement the counterexample was reported under. */
  readonly reported: string
  /** Others the report named as equally likely (ambiguous attribution). */
  readonly alsoReported: ReadonlyArray<string>
  /** What the known-bad declares it breaks. */
  readonly expected: ReadonlyArray<string>
  readonly explanation: string
}

/** The counterexamples reported under a requirement that `knownBad` does not declare in `breaks`. */
export const misattributed = (
  knownBad: Pick<KnownBad<unknown>, "name" | "breaks">,
  counterexamples: ReadonlyArray<Counterexample>
): ReadonlyArray<Misattribution> =>
  counterexamples
    .filter((counterexample) => !knownBad.breaks.includes(counterexample.divergence.requirementId))
    .map((counterexample) => ({
      knownBad: knownBad.name,
      propertyId: counterexample.propertyId,
      reported: counterexample.divergence.requirementId,
      alsoReported: counterexample.divergence.alsoRequirementIds ?? [],
      expected: knownBad.breaks,
      explanation: counterexample.divergence.explanation
    }))

/** Whether a re-execution diverged exactly as the counterexample did (requirement, step and sentence). */
export const sameDivergence = (recorded: Divergence, replayed: Divergence | null): boolean =>
  replayed !== null &&
  replayed.requirementId === recorded.requirementId &&
  replayed.stepIndex === recorded.stepIndex &&
  replayed.explanation === recorded.explanation
