/**
 * Every SQL dialect difference of the cron subject, in one place. The rest is portable SQL through
 * the effect/sql template tag: partial unique indexes, `INSERT ... ON CONFLICT (...) WHERE ... DO
 * NOTHING` and `UPDATE ... RETURNING` work on SQLite >= 3.35 and Postgres alike.
 */
import type { Dialect } from "../../adapters/contract.ts"

/** What differs between dialects for the cron tables. */
export interface CronDialect {
  readonly dialect: Dialect
  /**
   * Suffix of the claim's row selection: Postgres skips rows another runner's claim transaction has
   * locked (two runners never claim one row at once); SQLite runs one transaction at a time.
   */
  readonly claimLock: string
}

const sqlite: CronDialect = { dialect: "sqlite", claimLock: "" }
const postgres: CronDialect = { dialect: "postgres", claimLock: "FOR UPDATE SKIP LOCKED" }

/** The dialect description for `dialect`. */
export const cronDialect = (dialect: Dialect): CronDialect => (dialect === "sqlite" ? sqlite : postgres)

/**
 * Reads an integer column: drivers return numbers, bigints or strings (Postgres BIGINT). Throws on a
 * value that is not a safe integer, which would mean a corrupted row.
 */
export const readInteger = (value: unknown): number => {
  const n = typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : Number(String(value))
  if (!Number.isSafeInteger(n)) throw new RangeError(`expected a safe integer column value, got ${String(value)}`)
  return n
}
