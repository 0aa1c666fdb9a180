/**
 * Every SQL dialect difference of the clocks subject, in one place: the epoch-millisecond column
 * type. The rest is portable SQL through the `effect/sql` template tag (`INSERT ... ON CONFLICT DO
 * NOTHING`, `RETURNING`, placeholders compiled per dialect).
 */
import type { Dialect } from "../../adapters/contract.ts"

/** What differs between dialects for the clocks tables. */
export interface ClocksDialect {
  readonly dialect: Dialect
  /** Column type of epoch-millisecond integers. */
  readonly epochMsType: "INTEGER" | "BIGINT"
}

/** The dialect description for `dialect`. */
export const clocksDialect = (dialect: Dialect): ClocksDialect => ({
  dialect,
  epochMsType: dialect === "sqlite" ? "INTEGER" : "BIGINT"
})

export { readInteger, readNullableInteger } from "../alarms/dialect.ts"
