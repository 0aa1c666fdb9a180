/**
 * The shipped `clocks` implementation: the engine skeleton with the correct pieces.
 *
 * @example
 * ```ts
 * const clocks = yield* shippedClocks.make(environment)
 * ```
 */
import type { ClocksImplementation } from "./api.ts"
import { makeClocks } from "./make.ts"
import { defaultClockPieces } from "./pieces.ts"

/** Name of the shipped implementation in reports. */
export const SHIPPED_CLOCKS_NAME = "effect-sql-clocks"

/** The shipped implementation (effect/sql, every dialect). */
export const shippedClocks: ClocksImplementation = {
  name: SHIPPED_CLOCKS_NAME,
  make: makeClocks(defaultClockPieces)
}

export * from "./api.ts"
export { CLOCK_HOOK_POINTS, makeClocks } from "./make.ts"
export { defaultClockPieces, defaultFireRetryPolicy } from "./pieces.ts"
export type { ClockPieces } from "./pieces.ts"
export { JOURNAL_TABLE, makeSqlJournal, readJournal } from "./journal.ts"
