/**
 * The content reference model: state, operations, step and the `ReferenceModel` value.
 */
export * from "./operations.ts"
export * from "./referenceModel.ts"
export * from "./results.ts"
export * from "./state.ts"
export { type ContentStepOutcome, contentStep, raceClause } from "./step.ts"
export { type ModelOutcome, type RefusalReason, verdictOf } from "./write.ts"
export { operationAlternatives } from "./alternatives.ts"
export { sweep, sweepAlternatives, type SweepRun } from "./sweep.ts"
export { CONTENT_SITUATIONS, type ContentSituation, contentSituations } from "./situations.ts"
