/**
 * Known-bad: an adapter that reports duplicate keys as a generic `ConstraintError` instead of
 * `UniqueViolation` (what `classifySqliteError` alone does for a duplicate PRIMARY KEY, whose SQLite
 * code is SQLITE_CONSTRAINT_PRIMARYKEY). Must fail ADP-010.
 */
import { ConstraintError, SqlError } from "effect/sql/SqlError"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { wrapAdapter } from "./wrapAdapter.ts"

/** Wraps `base` so `UniqueViolation` reasons become `ConstraintError`. */
export const genericConstraintErrors = (base: StorageAdapter): StorageAdapter =>
  wrapAdapter(base, `${base.name}-generic-constraint-errors`, {
    mapError: (error) =>
      error.reason._tag === "UniqueViolation"
        ? new SqlError({ reason: new ConstraintError({ cause: error.reason.cause, message: error.reason.message, operation: error.reason.operation }) })
        : error
  })
