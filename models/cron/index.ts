/** The cron reference model: schedules parsed and keyed independently, `next` by brute force, ticks and settling. */
export * from "./fields.ts"
export * from "./next.ts"
export * from "./referenceModel.ts"
export * from "./schedule.ts"
export * from "./situations.ts"
export * from "./state.ts"
export * from "./step.ts"
export * from "./ticks.ts"
