/**
 * Durable Object SQLite reports failures as plain `Error`s whose message ends with the SQLite result
 * code, e.g. `UNIQUE constraint failed: t.k: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)`.
 * They carry no `code` property, so `effect/sql` classifies every one of them as `UnknownError`.
 *
 * This module re-throws such errors with a `code` read from the message, so that the classifier of
 * `effect/sql` (`classifySqliteError`) yields `UniqueViolation`, `ConstraintError`, ... as it does for
 * other SQLite drivers. A primary-key violation is reported as a unique violation (as Postgres does),
 * because subjects treat "this key already exists" the same whichever constraint enforces it.
 */
import type { DurableObjectStorage, SqlStorage } from "@cloudflare/workers-types"

/** Message prefix SQLite uses for both UNIQUE and PRIMARY KEY violations. */
const UNIQUE_FAILED_PREFIX = "UNIQUE constraint failed:"

/** `...: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)` or `...: SQLITE_ERROR` at the end of a message. */
const TRAILING_CODE = /(SQLITE_[A-Z]+)(?: \(extended: (SQLITE_[A-Z_]+)\))?\s*$/

/** The SQLite result code named in a workerd error message, the extended one when present. */
export const sqliteCodeFromMessage = (message: string): string | undefined => {
  if (message.includes(UNIQUE_FAILED_PREFIX)) return "SQLITE_CONSTRAINT_UNIQUE"
  const match = TRAILING_CODE.exec(message)
  if (match === null) return undefined
  return match[2] ?? match[1]
}

/** An error with the SQLite code that `effect/sql`'s classifier understands; the original is its `cause`. */
export class DurableObjectSqliteError extends Error {
  readonly code: string
  constructor(original: Error, code: string) {
    super(original.message, { cause: original })
    this.name = "DurableObjectSqliteError"
    this.code = code
  }
}

/** Adds a `code` to a workerd SQLite error when its message names one; other values pass through. */
export const withSqliteCode = (cause: unknown): unknown => {
  if (!(cause instanceof Error) || "code" in cause) return cause
  const code = sqliteCodeFromMessage(cause.message)
  return code === undefined ? cause : new DurableObjectSqliteError(cause, code)
}

/** `SqlStorage` whose `exec` re-throws errors with a SQLite code (see `withSqliteCode`). */
export const classifyingSqlStorage = (sql: SqlStorage): SqlStorage => {
  const exec: SqlStorage["exec"] = (query, ...bindings) => {
    try {
      return sql.exec(query, ...bindings)
    } catch (cause) {
      throw withSqliteCode(cause)
    }
  }
  return delegateExcept(sql, "exec", exec)
}

/** A view of a native object that answers `property` with `replacement` and delegates the rest, bound to the target. */
const delegateExcept = <T extends object>(target: T, property: PropertyKey, replacement: unknown): T =>
  new Proxy(target, {
    get(object, key) {
      if (key === property) return replacement
      const value: unknown = Reflect.get(object, key, object)
      return typeof value === "function" ? value.bind(object) : value
    }
  })

/**
 * The part of `DurableObjectStorage` that `@effect/sql-sqlite-do` uses (`sql`, `transaction`), with
 * a classifying `sql`. Everything else is delegated to the real storage.
 */
export const classifyingStorage = (storage: DurableObjectStorage): DurableObjectStorage =>
  delegateExcept(storage, "sql", classifyingSqlStorage(storage.sql))
