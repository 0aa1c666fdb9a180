/**
 * The shipped `cron` implementation: the runtime skeleton with the correct pieces.
 *
 * @example
 * ```ts
 * const cron = yield* shippedCron.make({ sql: db.sql, dialect: "sqlite", retryWindowMs: 3_600_000 })
 * ```
 */
import type { CronImplementation } from "./api.ts"
import { makeCronRuntime } from "./make.ts"
import { defaultCronPieces } from "./pieces.ts"

/** Name of the shipped implementation in reports. */
export const SHIPPED_CRON_NAME = "effect-sql-cron"

/** The shipped implementation (effect/sql, every dialect, croner for schedules). */
export const shippedCron: CronImplementation = {
  name: SHIPPED_CRON_NAME,
  make: makeCronRuntime(defaultCronPieces)
}

export * from "./api.ts"
export { CRON_HOOK_POINTS, makeCronRuntime } from "./make.ts"
export { defaultCronPieces } from "./pieces.ts"
export type { CronPieces } from "./pieces.ts"
