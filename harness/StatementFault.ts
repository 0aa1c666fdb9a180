/**
 * The statement-level storage fault (`statementFails` in `Faults.ts`), with Postgres's meaning: one
 * statement of a transaction fails (a deadlock victim, SQLSTATE 40P01), which aborts the transaction.
 * From then on every statement of it fails (`25P02`, "current transaction is aborted") until it ends,
 * and a COMMIT rolls it back without an error, as Postgres does. An implementation that lets the
 * error propagate rolls back and fails; one that swallows it is told "committed" while nothing was.
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

/** The transaction a statement fault is armed for, while it runs. */
export interface StatementFaultWatch {
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
 * A statement transformer that fails the watched transaction's named statement and every statement
 * of it after that; every other statement goes on to `outer` (the transformer already in place, if
 * any) unchanged.
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
    if (watch.struck) return Effect.fail(abortedTransactionError()) as unknown as Effect.Effect<Statement.Statement<unknown>>
    if (level[1] === 0 && watch.statementsRun < watch.statement) {
      watch.statementsRun++
      if (watch.statementsRun === watch.statement) {
        watch.struck = true
        return Effect.fail(deadlockVictimError()) as unknown as Effect.Effect<Statement.Statement<unknown>>
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
