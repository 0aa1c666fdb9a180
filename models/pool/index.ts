/** The pool reference model: state, transitions, command resolution, the `ReferenceModel` and its named situations. */
export * from "./operations.ts"
export * from "./referenceModel.ts"
export * from "./situations.ts"
export * from "./state.ts"
export { holdsUntilReleased } from "./step.ts"
