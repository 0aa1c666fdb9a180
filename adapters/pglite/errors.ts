/**
 * Classification of PGlite errors (Postgres SQLSTATE codes) into `effect/sql` error reasons, so a
 * duplicate key surfaces as `UniqueViolation` exactly as it does through `@effect/sql-pg`.
 */
import {
  AuthorizationError,
  ConnectionError,
  ConstraintError,
  DeadlockError,
  LockTimeoutError,
  SerializationError,
  SqlError,
  type SqlErrorReason,
  SqlSyntaxError,
  StatementTimeoutError,
  UniqueViolation,
  UnknownError
} from "effect/sql/SqlError"

const field = (cause: unknown, name: string): string | undefined => {
  if (typeof cause !== "object" || cause === null) return undefined
  const value = (cause as Record<string, unknown>)[name]
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined
}

/** The `effect/sql` reason for a SQLSTATE code (undefined code: unknown). */
export const reasonForSqlState = (
  code: string | undefined,
  props: { readonly cause: unknown; readonly message: string; readonly operation: string },
  constraint: string | undefined
): SqlErrorReason => {
  if (code === undefined) return new UnknownError(props)
  if (code === "23505") return new UniqueViolation({ ...props, constraint: constraint ?? "unknown" })
  if (code.startsWith("23")) return new ConstraintError(props)
  if (code === "40001") return new SerializationError(props)
  if (code === "40P01") return new DeadlockError(props)
  if (code === "55P03") return new LockTimeoutError(props)
  if (code === "57014") return new StatementTimeoutError(props)
  if (code === "42501") return new AuthorizationError(props)
  if (code.startsWith("42")) return new SqlSyntaxError(props)
  if (code.startsWith("08")) return new ConnectionError(props)
  return new UnknownError(props)
}

/** Wraps an error thrown by PGlite as a classified `SqlError`. */
export const pgliteError = (cause: unknown, operation: string): SqlError => {
  const detail = cause instanceof Error ? cause.message : String(cause)
  const code = field(cause, "code")
  const message = `PGlite: ${operation} failed${code === undefined ? "" : ` (SQLSTATE ${code})`}: ${detail}`
  return new SqlError({ reason: reasonForSqlState(code, { cause, message, operation }, field(cause, "constraint")) })
}

/** The error for a COMMIT that Postgres turned into a ROLLBACK (the transaction had already failed). */
export const abortedCommitError = (): SqlError => {
  const message =
    "PGlite: COMMIT rolled back the transaction because a statement inside it had failed; none of its writes were kept"
  return new SqlError({
    reason: new UnknownError({ cause: new Error(message), message, operation: "commit" })
  })
}
