/**
 * Seeing the statements an operation runs, with no cooperation from the implementation: each statement
 * passes `effect/sql`'s statement transformer before it takes a connection, so the harness learns its
 * text and whether it runs inside a transaction. Races use this to place the storage boundary's points
 * (`BoundaryPoints.ts`) by what a transaction did, named by upstream's persisted layout (e.g. content's
 * sweep after a reference scan, its racer after writing the content row).
 */
import { Context, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type * as Statement from "effect/sql/Statement"
import { withStatementFaults } from "./StatementFault.ts"

/** One statement as the watch saw it. */
export interface SeenStatement {
  /** The compiled SQL text, compiled on first read (a watch that tests `inTransaction` first pays nothing for the rest). */
  readonly text: string
  /** It runs inside a transaction of the client (`transactionService` is set in its fiber). */
  readonly inTransaction: boolean
}

/**
 * A statement that writes rows: it starts with INSERT, UPDATE, DELETE, MERGE or SQLite's REPLACE, or is
 * a WITH whose body does. Schema statements (CREATE, ALTER, DROP) are not row writes.
 */
export const isWriteStatement = (text: string): boolean =>
  /^\s*(insert|update|delete|merge|replace)\b/i.test(text) ||
  (/^\s*with\b/i.test(text) && /\b(insert\s+into|update\s+\w+\s+set|delete\s+from|merge\s+into)\b/i.test(text))

/**
 * `operation` with `seen` told of every statement it runs on a client whose transactions carry
 * `transactionService`, before the statement runs. When `seen` returns an effect, the statement runs
 * after it: a race point placed between two statements of one transaction (the transaction stays open,
 * its connection and locks held).
 *
 * @example watchStatements(store.sweep(false), sql.transactionService, (statement) => { if (/actor_content_refs/.test(statement.text)) scans++ })
 */
export const watchStatements = <A, E, R>(
  operation: Effect.Effect<A, E, R>,
  transactionService: SqlClient.SqlClient["transactionService"],
  seen: (statement: SeenStatement) => Effect.Effect<void> | void
): Effect.Effect<A, E, R> =>
  withStatementFaults(operation, (outer: Statement.Transformer | undefined): Statement.Transformer => (statement, sql, fiber, span) => {
    let text: string | undefined
    const before = seen({
      get text() {
        text ??= statement.compile()[0]
        return text
      },
      inTransaction: Context.getOrUndefined(fiber.context, transactionService) !== undefined
    })
    const next = outer === undefined ? Effect.succeed(statement) : outer(statement, sql, fiber, span)
    return before === undefined ? next : Effect.andThen(before, next)
  })
