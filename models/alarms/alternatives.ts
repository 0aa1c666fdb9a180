/**
 * Operations the rules allow in place of a given one, where they leave a choice to the
 * implementation. The property judges a step by the first alternative the implementation agrees
 * with (`harness/Alternatives.ts`); the canonical operation comes first, so the shipped scheduler
 * sees exactly the checks it saw before the alternative existed.
 */
import { MAX_ALTERNATIVES } from "../../harness/Alternatives.ts"
import { resolveConfiguration } from "./configuration.ts"
import { optionsProblem } from "./dispatch.ts"
import type { Operation } from "./operations.ts"
import type { ModelState } from "./state.ts"

/**
 * `operation` first, then each allowed alternative from `state`. A dispatch whose configuration
 * and options are both invalid may report either error (R8 orders a schedule's checks, R20 says
 * only that invalid options are rejected before any row is touched), so it gets a second
 * operation that checks its options first.
 *
 * @example operationAlternatives(state, dispatch) // [dispatch, { ...dispatch, optionsCheckedFirst: true }]
 */
export const operationAlternatives = (state: ModelState, operation: Operation): ReadonlyArray<Operation> =>
  operation.kind === "processDueAlarms" && !resolveConfiguration(state.configuration).ok && optionsProblem(operation.options ?? {}) !== null
    ? [operation, { ...operation, optionsCheckedFirst: true }]
    : [operation]

/**
 * A call whose `readFails` fault struck (the harness saw the implementation's read fail): the read may
 * have been at any of the `readPoints` places the step passes (`run.ts`, `readFailsHere`), since no rule
 * fixes how many reads an implementation runs outside a transaction, nor where. One alternative per
 * point, in order; the canonical one fails before anything else.
 *
 * @example struckReadAlternatives(status, 1) // [{ ...status, fault: { ...status.fault, readPoint: 1 } }]
 */
export const struckReadAlternatives = (operation: Operation, readPoints: number): ReadonlyArray<Operation> => {
  const fault = "fault" in operation ? operation.fault : undefined
  if (fault?.phase !== "readFails") throw new Error(`struckReadAlternatives: ${operation.kind} carries no readFails fault`)
  if (!Number.isInteger(readPoints) || readPoints < 1 || readPoints > MAX_ALTERNATIVES) {
    throw new Error(`struckReadAlternatives: a struck read needs 1 to ${MAX_ALTERNATIVES} read points, the model passed ${readPoints}`)
  }
  return Array.from({ length: readPoints }, (_, index) => ({ ...operation, fault: { ...fault, readPoint: index + 1 } }) as Operation)
}
