/** The clocks reference model: types, keys, the step function and the `ReferenceModel`. */
export * from "./types.ts"
export * from "./keys.ts"
export { step, MAX_INSTANTS_PER_ADVANCE } from "./step.ts"
export { clocksModel, initialState, observableOf } from "./referenceModel.ts"
export { operationAlternatives } from "./alternatives.ts"
export { CLOCKS_SITUATION_NEEDS, CLOCKS_SITUATIONS, type ClocksSituation, clocksSituations, raceSituation, resultRaceSituation, scheduleRaceSituation } from "./situations.ts"
