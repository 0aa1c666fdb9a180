/**
 * Where a rule leaves a choice to the implementation (the order a sweep takes its tenants in, say),
 * the model predicts each allowed choice and the step is judged by the first prediction the
 * observation agrees with: an implementation is wrong only when no allowed choice explains what it
 * did. The first alternative is the canonical one, reported when none agrees, so an implementation
 * that makes the canonical choice sees exactly the checks it saw before alternatives existed.
 */
import { type Check, firstMismatch } from "./ModelBased.ts"

/** Bound on the alternatives one step may weigh (each is a model step and its checks). */
export const MAX_ALTERNATIVES = 24

/**
 * The prediction of the first of `alternatives` whose checks all pass, else the prediction of the
 * first (canonical) one. Predictions are made lazily, in order: the canonical one alone when it agrees.
 *
 * @example firstConsistent(sweepAlternatives(model, op), predictSweep, (prediction) => prediction.checks)
 */
export const firstConsistent = <A, P>(alternatives: ReadonlyArray<A>, predict: (alternative: A) => P, checksOf: (prediction: P) => ReadonlyArray<Check>): P => {
  if (alternatives.length === 0) throw new Error("firstConsistent needs at least one alternative (the canonical one)")
  if (alternatives.length > MAX_ALTERNATIVES) throw new Error(`a step weighs at most ${MAX_ALTERNATIVES} alternatives, got ${alternatives.length}`)
  const canonical = predict(alternatives[0]!)
  if (firstMismatch(checksOf(canonical)) === undefined) return canonical
  for (const alternative of alternatives.slice(1)) {
    const prediction = predict(alternative)
    if (firstMismatch(checksOf(prediction)) === undefined) return prediction
  }
  return canonical
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
