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
