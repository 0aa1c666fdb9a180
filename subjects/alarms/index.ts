/**
 * The shipped `alarms` implementation: the scheduler skeleton with the correct pieces.
 *
 * @example
 * ```ts
 * const alarms = yield* shippedAlarms.make({ sql: db.sql, dialect: "sqlite", platformAlarm: db.platformAlarm })
 * ```
 */
import type { AlarmsImplementation } from "./api.ts"
import { makeAlarmScheduler } from "./make.ts"
import { defaultAlarmPieces } from "./pieces.ts"

/** Name of the shipped implementation in reports. */
export const SHIPPED_ALARMS_NAME = "effect-sql-alarms"

/** The shipped implementation (effect/sql, every dialect). */
export const shippedAlarms: AlarmsImplementation = {
  name: SHIPPED_ALARMS_NAME,
  make: makeAlarmScheduler(defaultAlarmPieces)
}

export * from "./api.ts"
export { ALARM_HOOK_POINTS, makeAlarmScheduler } from "./make.ts"
export { defaultAlarmPieces } from "./pieces.ts"
export type { AlarmPieces } from "./pieces.ts"
export { defineAlarms } from "./definitions.ts"
export type { AlarmDefinition, AlarmDefinitions, DefinedAlarmScheduler, DefinedAlarmTransaction, DefinedAlarmHandlers, DefinedAlarmEvent } from "./definitions.ts"
