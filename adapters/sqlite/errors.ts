/**
 * Classification of better-sqlite3 errors into `effect/sql` error reasons.
 *
 * `classifySqliteError` recognises `SQLITE_CONSTRAINT_UNIQUE` only; a duplicate PRIMARY KEY is reported
 * by SQLite as `SQLITE_CONSTRAINT_PRIMARYKEY` (extended code 1555) and would come out as a generic
 * `ConstraintError`. Postgres reports both as 23505, so for the adapter contract (unique violations
 * are recognisable) we classify a primary-key duplicate as `UniqueViolation` as well.
 */
import { classifySqliteError, SqlError, UniqueViolation } from "effect/sql/SqlError"

const PRIMARY_KEY_CODE = "SQLITE_CONSTRAINT_PRIMARYKEY"
const PRIMARY_KEY_ERRNO = 1555
const FAILED_PREFIX = "UNIQUE constraint failed:"

const constraintFromMessage = (cause: unknown): string => {
  const message = cause instanceof Error ? cause.message : ""
  const at = message.indexOf(FAILED_PREFIX)
  const name = at === -1 ? "" : message.slice(at + FAILED_PREFIX.length).trim()
  return name.length === 0 ? "unknown" : name
}

const isPrimaryKeyViolation = (cause: unknown): boolean => {
  if (typeof cause !== "object" || cause === null) return false
  const { code, errno } = cause as { code?: unknown; errno?: unknown }
  return code === PRIMARY_KEY_CODE || errno === PRIMARY_KEY_ERRNO
}

/** Wraps a thrown better-sqlite3 error as a classified `SqlError`. */
export const sqliteError = (cause: unknown, operation: string): SqlError => {
  const message = `better-sqlite3: ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`
  if (isPrimaryKeyViolation(cause)) {
    return new SqlError({
      reason: new UniqueViolation({ cause, message, operation, constraint: constraintFromMessage(cause) })
    })
  }
  return new SqlError({ reason: classifySqliteError(cause, { message, operation }) })
}
