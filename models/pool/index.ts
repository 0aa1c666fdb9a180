/** The pool reference model: state, transitions, command resolution and the `ReferenceModel`. */
export * from "./operations.ts"
export * from "./referenceModel.ts"
export * from "./state.ts"
export { holdsUntilReleased } from "./step.ts"
