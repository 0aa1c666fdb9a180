/**
 * Where a rule leaves a choice to the implementation (the order a sweep takes its tenants in, say),
 * the model predicts each allowed choice and the step is judged by the first prediction the
 * observation agrees with: an implementation is wrong only when no allowed choice explains what it
 * did. The first alternative is the canonical one, reported when none agrees, so an implementation
 * that makes the canonical choice sees exactly the checks it saw before alternatives existed.
 */
import type { Json } from "./Property.ts"
import { type Check, firstMismatch, jsonEqual } from "./ModelBased.ts"

/** Bound on the alternatives one step may weigh (each is a model step and its checks). */
export const MAX_ALTERNATIVES = 24

/** A prediction a step is judged by: its checks, finest first. */
export interface Judged {
  readonly checks: ReadonlyArray<Check>
}

/**
 * The prediction of the first of `alternatives` whose checks all pass, else the prediction of the
 * first (canonical) one, its first mismatch naming what the other alternatives expected of the same
 * observable (`Check.alsoExpected`), so a witness says every value the rules allowed. Predictions are
 * made lazily, in order: the canonical one alone when it agrees.
 *
 * @example firstConsistent(sweepAlternatives(model, op), predictSweep)
 */
export const firstConsistent = <A, P extends Judged>(alternatives: ReadonlyArray<A>, predict: (alternative: A) => P): P => {
  if (alternatives.length === 0) throw new Error("firstConsistent needs at least one alternative (the canonical one)")
  if (alternatives.length > MAX_ALTERNATIVES) throw new Error(`a step weighs at most ${MAX_ALTERNATIVES} alternatives, got ${alternatives.length}`)
  const canonical = predict(alternatives[0]!)
  if (firstMismatch(canonical.checks) === undefined) return canonical
  const others: Array<ReadonlyArray<Check>> = []
  for (const alternative of alternatives.slice(1)) {
    const prediction = predict(alternative)
    if (firstMismatch(prediction.checks) === undefined) return prediction
    others.push(prediction.checks)
  }
  return others.length === 0 ? canonical : { ...canonical, checks: withOthersExpected(canonical.checks, others) }
}

/**
 * `checks` with their first mismatch told the distinct values `others` (the other alternatives'
 * checks) expected of its observable, where they too differ from what was observed. An alternative
 * that expected the observed value there failed on another observable, so its value is not listed:
 * the witness stays the canonical story.
 */
const withOthersExpected = (checks: ReadonlyArray<Check>, others: ReadonlyArray<ReadonlyArray<Check>>): ReadonlyArray<Check> => {
  const mismatch = firstMismatch(checks)!
  const index = checks.indexOf(mismatch)
  const alsoExpected: Array<Json> = []
  for (const otherChecks of others) {
    const same = otherChecks.find((check) => check.observable === mismatch.observable)
    if (same === undefined || jsonEqual(same.expected, same.actual)) continue
    if ([mismatch.expected, ...alsoExpected].some((value) => jsonEqual(value, same.expected))) continue
    alsoExpected.push(same.expected)
  }
  return alsoExpected.length === 0 ? checks : checks.map((check, at) => (at === index ? { ...check, alsoExpected } : check))
}

/** How many orders `items` of `count` have, up to `MAX_ALTERNATIVES + 1` (a bound, not the exact n!). */
export const orderCount = (count: number): number => {
  let orders = 1
  for (let factor = 2; factor <= count && orders <= MAX_ALTERNATIVES; factor++) orders *= factor
  return Math.min(orders, MAX_ALTERNATIVES + 1)
}

/**
 * The `index`-th order of `items`, counting orders lexicographically by position (0 is `items` as
 * given; for n items, n! - 1 is their reverse). `index` must be below n! (at most `MAX_ALTERNATIVES`).
 *
 * @example orderAt(["a", "b", "c"], 1) // ["a", "c", "b"]
 */
export const orderAt = <T>(items: ReadonlyArray<T>, index: number): Array<T> => {
  if (!Number.isInteger(index) || index < 0 || index >= orderCount(items.length)) throw new Error(`orderAt: index ${index} is not an order of ${items.length} items`)
  const rest = [...items]
  const ordered: Array<T> = []
  let remaining = index
  for (let count = rest.length; count > 0; count--) {
    const block = orderCount(count - 1)
    ordered.push(rest.splice(Math.floor(remaining / block), 1)[0]!)
    remaining %= block
  }
  return ordered
}

/** Every order of `items` (n! of them; at most `MAX_ALTERNATIVES`, so n <= 4), the given order first. */
export const everyOrder = <T>(items: ReadonlyArray<T>): ReadonlyArray<ReadonlyArray<T>> => {
  const count = orderCount(items.length)
  if (count > MAX_ALTERNATIVES) throw new Error(`everyOrder: ${items.length} items have more than ${MAX_ALTERNATIVES} orders`)
  return Array.from({ length: count }, (_, index) => orderAt(items, index))
}
