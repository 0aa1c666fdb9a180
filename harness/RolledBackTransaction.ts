/**
 * A transaction that rolls back while its caller still gets the body's value. The body's value leaves
 * the transaction as a failure (`rollBackWith`), which makes the client roll it back, and is turned back
 * into a success outside it (`keepRolledBackValue`). Harness probes use it to write, read what they
 * wrote and leave storage as they found it (`inRolledBackTransaction`); the storage boundary uses it for
 * a transaction whose failed statement the implementation swallowed (Postgres's COMMIT of an aborted
 * transaction rolls back without an error).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/** Carries the body's value out of the transaction it rolls back. */
export class RolledBack<A> {
  constructor(readonly value: A) {}
}

const isRolledBack = (error: unknown): error is RolledBack<unknown> => error instanceof RolledBack

/**
 * Fails a transaction's body with `value`, so the transaction rolls back; `keepRolledBackValue` outside
 * it hands `value` to the caller.
 */
export const rollBackWith = <A>(value: A): Effect.Effect<never, RolledBack<A>> => Effect.fail(new RolledBack(value))

/** `transaction` with a body's `rollBackWith` value turned back into its success. */
export const keepRolledBackValue = <A, E, R>(transaction: Effect.Effect<A, E | RolledBack<A>, R>): Effect.Effect<A, E, R> =>
  transaction.pipe(Effect.catchIf(isRolledBack, (rolledBack) => Effect.succeed((rolledBack as RolledBack<A>).value))) as Effect.Effect<A, E, R>

/**
 * `body` in a transaction of `sql` that is always rolled back; succeeds with the body's value, or fails
 * with its error (or the client's).
 *
 * @example const kept = yield* inRolledBackTransaction(sql, Effect.andThen(insertRow, countRows))
 */
export const inRolledBackTransaction = <A, E, R>(sql: SqlClient.SqlClient, body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  keepRolledBackValue(sql.withTransaction(Effect.flatMap(body, rollBackWith)))
