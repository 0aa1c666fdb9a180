/**
 * Step schedules as generated data: which paused operation proceeds at each scheduling point of a
 * step-scheduled run (`StepScheduler.ts`). Two strategies, both plain JSON so a schedule shrinks and
 * replays from the token:
 *
 * - `uniform`: one pick per step, uniform over the operations enabled at that step;
 * - `pct`: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010):
 *   each operation gets a distinct initial priority, d−1 change points are drawn uniformly among the k
 *   steps; at every step the highest-priority enabled operation proceeds, and at the i-th change point
 *   the operation about to proceed drops to priority −i, below every initial priority.
 *
 * Random parts are drawn without fast-check's small-value bias (`fc.noBias`), so a PCT schedule has the
 * distribution the paper's bound assumes. Shrinking goes toward the identity order (operation 0 first,
 * each run to its end), earlier change points and fewer change points (a change point shrinks to `null`,
 * none).
 *
 * @example
 * ```ts
 * const schedule = fc.sample(stepScheduleArbitrary({ operations: 2, steps: 4, maxDepth: 3 }), 1)[0]!
 * const choose = makeChooser(schedule, 2)
 * choose(0, [0, 1]) // the operation that proceeds at step 0
 * ```
 */
import * as fc from "fast-check"

/**
 * A uniform schedule: at step `s` with m operations enabled, the one at position ⌊picks[s]·m/840⌋ proceeds
 * (missing: 0). Scaling, not modulo, so a pick shrinks to the smallest value choosing the same position.
 */
export interface UniformSchedule {
  readonly strategy: "uniform"
  readonly picks: ReadonlyArray<number>
}

/** A PCT schedule: `priorityOrder[0]` has the highest initial priority; `changePoints` are step indexes. */
export interface PctSchedule {
  readonly strategy: "pct"
  readonly priorityOrder: ReadonlyArray<number>
  /** d−1 entries; `null` is a change point shrunk away. */
  readonly changePoints: ReadonlyArray<number | null>
}

/** A step schedule (plain JSON). */
export type StepSchedule = UniformSchedule | PctSchedule

/** Most operations a schedule may order (keeps `UNIFORM_PICK_RANGE` exact and small). */
export const MAX_SCHEDULED_OPERATIONS = 8
/** Most scheduling points a schedule may cover. */
export const MAX_SCHEDULED_STEPS = 1_000
/** Deepest PCT schedule drawn (the bound is stated for d ≤ 3). */
export const MAX_PCT_DEPTH = 3

/** lcm(1..8): a pick uniform in [0, 840) scaled to any enabled count ≤ 8 is exactly uniform. */
export const UNIFORM_PICK_RANGE = 840
/** A change point is drawn as none with probability 1/this (only so shrinking can remove it). */
const CHANGE_POINT_NONE_ODDS = 1 << 20

/** The depth d of a PCT schedule: its change points that are set, plus one. */
export const pctDepth = (schedule: PctSchedule): number => schedule.changePoints.filter((point) => point !== null).length + 1

/** Why `schedule` cannot order `operations` operations over `maxSteps` steps, or undefined when it can. */
export const scheduleProblem = (schedule: StepSchedule, operations: number, maxSteps: number): string | undefined => {
  if (!Number.isInteger(operations) || operations < 1 || operations > MAX_SCHEDULED_OPERATIONS) return `operations must be 1..${MAX_SCHEDULED_OPERATIONS}, got ${operations}`
  if (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > MAX_SCHEDULED_STEPS) return `maxSteps must be 1..${MAX_SCHEDULED_STEPS}, got ${maxSteps}`
  if (schedule.strategy === "uniform") {
    return schedule.picks.length <= maxSteps && schedule.picks.every((pick) => Number.isInteger(pick) && pick >= 0) ? undefined : `uniform picks must be at most ${maxSteps} natural numbers`
  }
  const order = schedule.priorityOrder
  const permutation = order.length === operations && new Set(order).size === operations && order.every((index) => Number.isInteger(index) && index >= 0 && index < operations)
  if (!permutation) return `PCT priority order ${JSON.stringify(order)} is not a permutation of ${operations} operations`
  const pointsOk = schedule.changePoints.length <= MAX_PCT_DEPTH - 1 && schedule.changePoints.every((point) => point === null || (Number.isInteger(point) && point >= 0 && point < maxSteps))
  return pointsOk ? undefined : `PCT change points ${JSON.stringify(schedule.changePoints)} must be at most ${MAX_PCT_DEPTH - 1} steps in 0..${maxSteps - 1}`
}

/** The bounds a schedule is drawn for: n operations, k scheduling points. */
export interface ScheduleBounds {
  readonly operations: number
  readonly steps: number
}

/** Uniform schedules over `bounds`: one pick per step; picks shrink toward 0 (the first enabled operation). */
export const uniformScheduleArbitrary = (bounds: ScheduleBounds): fc.Arbitrary<UniformSchedule> =>
  fc.array(fc.noBias(fc.nat({ max: UNIFORM_PICK_RANGE - 1 })), { minLength: bounds.steps, maxLength: bounds.steps })
    .map((picks): UniformSchedule => ({ strategy: "uniform", picks }))

/** A uniformly random permutation of 0..count-1 (Lehmer code), shrinking toward the identity. */
const uniformPermutation = (count: number): fc.Arbitrary<ReadonlyArray<number>> =>
  fc.tuple(...Array.from({ length: count }, (_, position) => fc.noBias(fc.nat({ max: count - 1 - position })))).map((code) => {
    const remaining = Array.from({ length: count }, (_, index) => index)
    return code.map((pick) => remaining.splice(pick, 1)[0]!)
  })

/** PCT schedules of depth exactly `depth` (d−1 change points) over `bounds`. */
export const pctScheduleArbitrary = (bounds: ScheduleBounds, depth: number): fc.Arbitrary<PctSchedule> => {
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_PCT_DEPTH) throw new RangeError(`PCT depth must be 1..${MAX_PCT_DEPTH}, got ${depth}`)
  const changePoint = fc.noBias(fc.option(fc.nat({ max: bounds.steps - 1 }), { nil: null, freq: CHANGE_POINT_NONE_ODDS }))
  return fc.record({
    priorityOrder: uniformPermutation(bounds.operations),
    changePoints: fc.tuple(...Array.from({ length: depth - 1 }, () => changePoint))
  }).map(({ priorityOrder, changePoints }): PctSchedule => ({ strategy: "pct", priorityOrder, changePoints }))
}

/**
 * A mix of strategies: uniform with weight `uniformWeight`, PCT of each depth 1..`maxDepth` with weight
 * `pctWeight` each. Shrinks toward a uniform schedule, then toward the identity order.
 */
export const stepScheduleArbitrary = (
  bounds: ScheduleBounds & { readonly maxDepth: number },
  weights: { readonly uniformWeight: number; readonly pctWeight: number } = { uniformWeight: 1, pctWeight: 1 }
): fc.Arbitrary<StepSchedule> =>
  fc.oneof(
    { withCrossShrink: true },
    { weight: weights.uniformWeight, arbitrary: uniformScheduleArbitrary(bounds) as fc.Arbitrary<StepSchedule> },
    ...Array.from({ length: bounds.maxDepth }, (_, index) => ({ weight: weights.pctWeight, arbitrary: pctScheduleArbitrary(bounds, index + 1) as fc.Arbitrary<StepSchedule> }))
  )

/** Chooses the operation (an index into the run's operations) that proceeds at `step` among `enabled` (ascending, non-empty). */
export type Chooser = (step: number, enabled: ReadonlyArray<number>) => number

/** The chooser of `schedule` over `operations` operations; stateful for PCT (priorities drop at change points). */
export const makeChooser = (schedule: StepSchedule, operations: number): Chooser => {
  if (schedule.strategy === "uniform") return (step, enabled) => enabled[Math.floor(((schedule.picks[step] ?? 0) % UNIFORM_PICK_RANGE) * enabled.length / UNIFORM_PICK_RANGE)]!
  const priority = new Array<number>(operations).fill(0)
  schedule.priorityOrder.forEach((operation, rank) => {
    priority[operation] = operations - rank
  })
  const changes = schedule.changePoints.filter((point): point is number => point !== null).sort((a, b) => a - b)
  const highest = (enabled: ReadonlyArray<number>): number => enabled.reduce((best, index) => (priority[index]! > priority[best]! ? index : best))
  return (step, enabled) => {
    let chosen = highest(enabled)
    changes.forEach((point, index) => {
      if (point !== step) return
      priority[chosen] = -(index + 1)
      chosen = highest(enabled)
    })
    return chosen
  }
}
