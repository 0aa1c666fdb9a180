/**
 * The guarantee of PCT schedules (Burckhardt et al., ASPLOS 2010), as numbers a report can state.
 *
 * A run of n operations reaching at most k scheduling points, scheduled by PCT with depth parameter d
 * (d−1 change points), exposes a given bug of depth d (one that needs d specific ordering constraints
 * between steps) with probability at least p = 1/(n·k^(d−1)). Over r independent PCT runs of depth d
 * the bug is missed with probability at most (1 − p)^r. Honest scope: the bound speaks only of
 * orderings of the steps the hook points expose (scheduling points), of bugs of exactly depth d, and of
 * runs whose schedule was PCT with parameter d; uniform schedules and other orderings add coverage but
 * no stated bound.
 *
 * @example
 * ```ts
 * pctHitProbability({ operations: 2, steps: 4 }, 2) // 0.125
 * pctMissProbability(0.125, 10)                     // ≈ 0.263
 * interleavingGuarantee({ operations: 2, steps: 4, maxDepth: 3 }, { "interleaving.pct.d2": 10 })
 * ```
 */

/** The interleaving shape a concurrent property declares (`PropertyDefinition.interleaving`). */
export interface InterleavingShape {
  /** n: operations scheduled against each other in one run. */
  readonly operations: number
  /** k: a stated upper bound on the scheduling points (steps) one run reaches; more is a harness error. */
  readonly steps: number
  /** The deepest bug depth d the property draws PCT schedules for and states a bound for (1..3). */
  readonly maxDepth: number
}

/** The stated bound for one depth. */
export interface DepthBound {
  readonly depth: number
  /** PCT runs of this depth the budget executed. */
  readonly pctRuns: number
  /** Lower bound of one such run exposing a given bug of this depth: 1/(n·k^(d−1)). */
  readonly perRunProbability: number
  /** Upper bound of all of them missing it: (1 − p)^pctRuns (1 when none ran). */
  readonly missProbability: number
}

/** What a report states for a property that declares an interleaving shape. */
export interface InterleavingGuarantee extends InterleavingShape {
  readonly bounds: ReadonlyArray<DepthBound>
}

/** Deepest depth a bound is stated for. */
export const MAX_STATED_DEPTH = 3

/** The situation name a run reports when its schedule was PCT of `depth` (counted per property run). */
export const pctSituation = (depth: number): string => `interleaving.pct.d${depth}`

/** Whether `shape` is a valid declaration (positive integers, 1 ≤ d ≤ 3). */
export const isInterleavingShape = (shape: InterleavingShape): boolean =>
  Number.isSafeInteger(shape.operations) && shape.operations >= 1 && Number.isSafeInteger(shape.steps) && shape.steps >= 1 &&
  Number.isInteger(shape.maxDepth) && shape.maxDepth >= 1 && shape.maxDepth <= MAX_STATED_DEPTH

/** p = 1/(n·k^(d−1)): the per-run lower bound of a PCT run of depth d exposing a given depth-d bug. */
export const pctHitProbability = (shape: Pick<InterleavingShape, "operations" | "steps">, depth: number): number => {
  if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`depth must be a positive integer, got ${depth}`)
  if (!(shape.operations >= 1 && shape.steps >= 1)) throw new RangeError(`operations and steps must be at least 1, got n=${shape.operations}, k=${shape.steps}`)
  return 1 / (shape.operations * shape.steps ** (depth - 1))
}

/** (1 − p)^runs: the upper bound of `runs` independent runs all missing a bug each finds with probability ≥ p. */
export const pctMissProbability = (perRunProbability: number, runs: number): number => {
  if (!(perRunProbability >= 0 && perRunProbability <= 1)) throw new RangeError(`probability must be in [0, 1], got ${perRunProbability}`)
  if (!Number.isSafeInteger(runs) || runs < 0) throw new RangeError(`runs must be a natural number, got ${runs}`)
  return (1 - perRunProbability) ** runs
}

/** Six significant digits, so report bytes do not depend on the last bits of a float. */
const rounded = (value: number): number => Number(value.toPrecision(6))

/** The guarantee for `shape`, counting PCT runs per depth from the property run's situations. */
export const interleavingGuarantee = (shape: InterleavingShape, situations: Readonly<Record<string, number>> | undefined): InterleavingGuarantee => {
  if (!isInterleavingShape(shape)) throw new RangeError(`invalid interleaving shape ${JSON.stringify(shape)}: n and k at least 1, d in 1..${MAX_STATED_DEPTH}`)
  const bounds = Array.from({ length: shape.maxDepth }, (_, index): DepthBound => {
    const depth = index + 1
    const pctRuns = situations?.[pctSituation(depth)] ?? 0
    const perRunProbability = pctHitProbability(shape, depth)
    return { depth, pctRuns, perRunProbability: rounded(perRunProbability), missProbability: rounded(pctMissProbability(perRunProbability, pctRuns)) }
  })
  return { operations: shape.operations, steps: shape.steps, maxDepth: shape.maxDepth, bounds }
}

/** The scope of the bound, in words, for every report format. */
export const GUARANTEE_SCOPE =
  "bounds hold only for bugs of exactly depth d in the order of the steps the hook points expose (at most k scheduling points per run), over the PCT runs of depth d; uniform schedules and unexposed orderings carry no stated bound"

const percent = (value: number): string => `${(value * 100).toPrecision(3)}%`

/** One depth's bound in words: `d=2: p ≥ 1/8 (12.5%) per PCT run; 10 runs; miss ≤ 26.3%`. */
export const describeDepthBound = (shape: InterleavingShape, bound: DepthBound): string =>
  `d=${bound.depth}: p ≥ 1/${shape.operations * shape.steps ** (bound.depth - 1)} (${percent(bound.perRunProbability)}) per PCT run; ${bound.pctRuns} run${bound.pctRuns === 1 ? "" : "s"}; miss ≤ ${percent(bound.missProbability)}`

/** The whole guarantee on one line: `n=2 k=4; d=1: ...; d=2: ...`. */
export const describeGuarantee = (guarantee: InterleavingGuarantee): string =>
  [`n=${guarantee.operations} k=${guarantee.steps}`, ...guarantee.bounds.map((bound) => describeDepthBound(guarantee, bound))].join("; ")
