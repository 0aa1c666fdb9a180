/**
 * Operations the rules allow in place of a given one, where they leave a choice to the store. The
 * property judges a step by the first alternative the observation agrees with (`harness/Alternatives.ts`);
 * the canonical operation (the shipped store's choice) comes first.
 *
 * - K6 fixes no order of a sweep's tenants (`sweepAlternatives`).
 * - K5 leaves two refusal reasons open: a tampered grant is `malformed` or `invalid`, and a grant both
 *   bound to other content and expired is `invalid` or `expired` (`verdictOf`).
 */
import type { ContentOperation } from "./operations.ts"
import type { ContentModelState } from "./state.ts"
import { sweepAlternatives } from "./sweep.ts"
import { verdictOf } from "./write.ts"

/**
 * `op` first, then each operation the rules allow in its place from `state`.
 *
 * @example operationAlternatives(state, attachOfTamperedGrant) // [attach, { ...attach, refusalChoice: 1 }]
 */
export const operationAlternatives = (state: ContentModelState, op: ContentOperation): ReadonlyArray<ContentOperation> => {
  if (op.kind === "sweep") return sweepAlternatives(state, op)
  if (op.kind !== "attach" && op.kind !== "verify") return [op]
  const verdict = verdictOf(state, op.grant, op, op.atMs)
  return !verdict.ok && verdict.twoReasons ? [op, { ...op, refusalChoice: 1 }] : [op]
}
