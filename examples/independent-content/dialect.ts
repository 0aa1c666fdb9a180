/**
 * The few places where SQLite and Postgres spell the same thing differently, kept together.
 */
import type { SqlClient, Statement } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"

/** SQL spellings that differ between the dialects. */
export interface DialectSql {
  readonly dialect: Dialect
  /** Column type of stored bytes. */
  readonly bytesType: string
  /** The larger of a (table-qualified) column and a value: `greatest` on Postgres, the scalar `max` on SQLite. */
  readonly larger: (column: string, value: number) => Statement.Fragment
  /** Whether one statement can delete from two tables (data-modifying CTEs, Postgres only). */
  readonly deletesAcrossTables: boolean
  /** Suffix of a claim subquery: skip rows another transaction holds (Postgres only). */
  readonly skipLocked: string
}

/** The spellings of `dialect`, building fragments with `sql`. */
export const dialectSql = (sql: SqlClient.SqlClient, dialect: Dialect): DialectSql => {
  const postgres = dialect === "postgres"
  return {
    dialect,
    bytesType: postgres ? "BYTEA" : "BLOB",
    larger: (column, value) =>
      postgres ? sql`greatest(${sql.literal(column)}, ${value})` : sql`max(${sql.literal(column)}, ${value})`,
    deletesAcrossTables: postgres,
    skipLocked: postgres ? "FOR UPDATE SKIP LOCKED" : ""
  }
}
