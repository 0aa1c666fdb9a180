/**
 * The statement-level storage fault (`statementFails` in `Faults.ts`): one statement of a transaction
 * fails, with the meaning the backend gives a failed statement (`StatementFailureMeaning`, from the
 * client's dialect):
 * - Postgres (`abortsTransaction`): the statement fails (a deadlock victim, SQLSTATE 40P01), which
 *   aborts the transaction. From then on every statement of it fails (`25P02`, "current transaction
 *   is aborted") until it ends, and a COMMIT rolls it back without an error, as Postgres does. An
 *   implementation that lets the error propagate rolls back and fails; one that swallows it is told
 *   "committed" while nothing was.
 * - SQLite (`statementOnly`): the statement fails and only its own work is undone (`SQLITE_FULL`
 *   with statement rollback); the transaction stays open, and its later statements and its COMMIT run
 *   as usual. An implementation that lets the error propagate rolls back and fails; one that swallows
 *   it commits whatever else it did, and is judged as if the statement had not failed
 *   (`StruckFault.ts`): one that recovered commits what the rules say, one that ignored it does not.
 *
 * The fault reaches statements through `effect/sql`'s statement transformer (`CurrentTransformer`),
 * provided to the transaction's body, which every statement of every `effect/sql` client runs before
 * it takes a connection: the
 * implementation needs no hook point and cannot tell a harness value. Only statements at the
 * transaction's outermost level count (a savepoint's own failure would be the implementation's to
 * recover from), and only those of the one transaction the fault names (its connection).
 *
 * The model cannot know how many statements an implementation runs, so a transaction that runs
 * fewer than the named one is refused at COMMIT instead (`StorageBoundary.ts`): either way it rolls
 * back and the caller sees an `SqlError`.
 */
import { Context, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { ConnectionError, DeadlockError, SqlError, UnknownError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"

/**
 * What a failed statement does to its transaction: Postgres aborts it (`abortsTransaction`), SQLite
 * undoes the statement alone and keeps the transaction open (`statementOnly`).
 */
export type StatementFailureMeaning = "abortsTransaction" | "statementOnly"

/** The meaning a failed statement has on `sql`'s backend, from its dialect: SQLite's for the sqlite dialect, else Postgres's. */
export const statementFailureMeaningOf = (sql: SqlClient.SqlClient): StatementFailureMeaning =>
  sql.onDialectOrElse({ sqlite: () => "statementOnly" as const, orElse: () => "abortsTransaction" as const })

/** The transaction a statement fault is armed for, while it runs. */
export interface StatementFaultWatch {
  /** What the failed statement does to the rest of the transaction. */
  readonly meaning: StatementFailureMeaning
  /** The transaction's connection (the first element of its `transactionService` level). */
  readonly connection: unknown
  /** 1-based ordinal, among the transaction's outermost-level statements, of the one that fails. */
  readonly statement: number
  /** Outermost-level statements the transaction started so far (at most `statement` are counted). */
  statementsRun: number
  /** Whether the named statement failed (the transaction is aborted from then on). */
  struck: boolean
}

/** What Postgres answers a deadlock victim: the statement fails, and its transaction is aborted. */
export const deadlockVictimError = (): SqlError =>
  new SqlError({
    reason: new DeadlockError({
      cause: new Error("deadlock detected (SQLSTATE 40P01)"),
      message: "the database chose this statement as a deadlock victim; its transaction is aborted",
      operation: "execute"
    })
  })

/** What SQLite answers a statement that ran out of space: the statement is undone, its transaction stays open. */
export const statementUndoneError = (): SqlError =>
  new SqlError({
    reason: new UnknownError({
      cause: new Error("database or disk is full (SQLITE_FULL)"),
      message: "the statement failed and was undone; its transaction is still open",
      operation: "execute"
    })
  })

/** The error the failing statement answers under `meaning`. */
export const failedStatementError = (meaning: StatementFailureMeaning): SqlError =>
  meaning === "statementOnly" ? statementUndoneError() : deadlockVictimError()

/** What a read outside any transaction fails with under `readFails`: its connection was lost before it ran. */
export const readFailedError = (): SqlError =>
  new SqlError({
    reason: new ConnectionError({
      cause: new Error("connection lost before the read ran (injected at the storage boundary)"),
      message: "the connection was lost before this read ran; nothing was read",
      operation: "execute"
    })
  })

/** What Postgres answers any statement of an aborted transaction. */
export const abortedTransactionError = (): SqlError =>
  new SqlError({
    reason: new UnknownError({
      cause: new Error("current transaction is aborted, commands ignored until end of transaction block (SQLSTATE 25P02)"),
      message: "the transaction was aborted by an earlier failed statement; roll it back",
      operation: "execute"
    })
  })

/**
 * A statement transformer that fails the watched transaction's named statement and, when the failure
 * aborts the transaction (`abortsTransaction`), every statement of it after that; every other
 * statement goes on to `outer` (the transformer already in place, if any) unchanged.
 *
 * The transformer's type has no error channel, but `effect/sql` runs it in the statement's own
 * effect, whose error channel is `SqlError`: the failure reaches the caller exactly as a failed
 * statement's would.
 */
export const statementFaultTransformer = (
  transactionService: SqlClient.SqlClient["transactionService"],
  watched: () => StatementFaultWatch | null,
  outer: Statement.Transformer | undefined
): Statement.Transformer =>
(statement, sql, fiber, span) => {
  const watch = watched()
  const level = watch === null ? undefined : Context.getOrUndefined(fiber.context, transactionService)
  if (watch !== null && level !== undefined && level[0] === watch.connection) {
    if (watch.struck && watch.meaning === "abortsTransaction") return Effect.fail(abortedTransactionError()) as unknown as Effect.Effect<Statement.Statement<unknown>>
    if (level[1] === 0 && watch.statementsRun < watch.statement) {
      watch.statementsRun++
      if (watch.statementsRun === watch.statement) {
        watch.struck = true
        return Effect.fail(failedStatementError(watch.meaning)) as unknown as Effect.Effect<Statement.Statement<unknown>>
      }
    }
  }
  return outer === undefined ? Effect.succeed(statement) : outer(statement, sql, fiber, span)
}

/** Runs `operation` with `transformer` wrapped around the statement transformer already in place. */
export const withStatementFaults = <A, E, R>(
  operation: Effect.Effect<A, E, R>,
  transformer: (outer: Statement.Transformer | undefined) => Statement.Transformer
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => Effect.provideService(operation, Statement.CurrentTransformer, transformer(fiber.getRef(Statement.CurrentTransformer))))
