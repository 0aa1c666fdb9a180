/**
 * Writes an implementation runs outside any transaction, seen at the storage boundary with no
 * cooperation of the implementation. SQL runs such a statement as a transaction of its own (autocommit),
 * so the boundary counts it, pauses before it and faults it exactly as an outermost transaction
 * (`StorageBoundary.ts`): a store that runs its deletes as single auto-committed statements, as
 * upstream's content sweep does (seed 001), meets the same faults as one that wraps each in a transaction.
 *
 * The write is seen through `effect/sql`'s statement transformer (`CurrentTransformer`), which every
 * statement passes before it takes a connection. Only statements of the boundary's own client, run
 * under the boundary that installed the transformer, count (`owns`): an operation another boundary
 * runs from inside this one (a racer at a hook point) carries its own, and a racer on another
 * connection is another client. Reads outside a transaction commit nothing and are not counted as
 * transactions; the boundary may still see each before it runs (`read`), to fail one (`readFails`).
 */
import { Context, Effect, type Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import { isWriteStatement } from "./StatementWatch.ts"

/**
 * What the boundary does with one auto-committed write, before it runs. It either succeeds without
 * running `execute` (the statement then runs as usual), or runs `execute` itself and then fails or
 * never returns (the write landed, the caller sees a failure or the process died); it may also fail or
 * stop without running it (nothing landed).
 */
export type AutoCommittedWrite = (execute: Effect.Effect<void, SqlError>) => Effect.Effect<void, SqlError>

/** Options of `autoCommittedWriteTransformer`. */
export interface AutoCommittedWriteOptions {
  /** The `transactionService` of the boundary's client: a statement with it set runs inside a transaction. */
  readonly transactionService: SqlClient.SqlClient["transactionService"]
  /**
   * Whether the statement is the boundary's: its fiber runs under the boundary that installed the
   * transformer, and `client` (the constructor `effect/sql` hands the transformer) is the boundary's client.
   */
  readonly owns: (fiber: Fiber.Fiber<unknown, unknown>, client: Statement.Constructor) => boolean
  /** The boundary's handling of one auto-committed write. */
  readonly write: AutoCommittedWrite
  /**
   * The boundary's handling of one read outside any transaction, before it runs: it succeeds (the read
   * runs as usual) or fails (the read never ran). Absent: reads pass unseen.
   */
  readonly read?: Effect.Effect<void, SqlError>
  /**
   * Whether the boundary sees statements at all right now. When it says no, every statement goes on
   * unchanged and uncompiled: a boundary that leaves writes unseen and has no read fault armed pays
   * nothing per statement. Absent: always.
   */
  readonly sees?: () => boolean
}

/**
 * A statement transformer that hands each auto-committed write of the boundary's operation to
 * `options.write`, then passes the statement on to `outer` (the transformer already in place, if any).
 * Every other statement goes on to `outer` unchanged, without being compiled.
 *
 * The transformer's type has no error channel, but `effect/sql` runs it in the statement's own effect,
 * whose error channel is `SqlError`: a failure reaches the caller exactly as a failed statement's would.
 *
 * @example withStatementFaults(operation, (outer) => autoCommittedWriteTransformer({ transactionService, owns, write }, outer))
 */
export const autoCommittedWriteTransformer = (
  options: AutoCommittedWriteOptions,
  outer: Statement.Transformer | undefined
): Statement.Transformer =>
(statement, sql, fiber, span) => {
  // Built only when the statement goes on: an outer transformer (a watch) sees a write after the
  // boundary let it through, never one the boundary crashed or ran itself.
  const next = () => (outer === undefined ? Effect.succeed(statement) : outer(statement, sql, fiber, span))
  if (options.sees?.() === false || !options.owns(fiber, sql) || Context.getOrUndefined(fiber.context, options.transactionService) !== undefined) return next()
  if (!isWriteStatement(statement.compile()[0])) {
    return options.read === undefined ? next() : Effect.andThen(options.read, Effect.suspend(next)) as unknown as Effect.Effect<Statement.Statement<unknown>>
  }
  // Run by the boundary itself: through the transformers outside this one only, so it is not seen twice.
  const execute = Effect.asVoid(Effect.provideService(statement, Statement.CurrentTransformer, outer))
  return Effect.andThen(options.write(execute), Effect.suspend(next)) as unknown as Effect.Effect<Statement.Statement<unknown>>
}
