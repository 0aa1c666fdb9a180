/**
 * Operations the rules allow in place of a given one, where they leave a choice to the
 * implementation. The property judges a step by the first alternative the implementation agrees
 * with (`harness/Alternatives.ts`); the canonical operation comes first, so the shipped scheduler
 * sees exactly the checks it saw before the alternative existed.
 */
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
