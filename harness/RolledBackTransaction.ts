/**
 * A harness probe's transaction that never commits: the body runs inside a transaction of the client,
 * which is then rolled back whatever the body did, so a probe can write, read what it wrote and leave
 * storage exactly as it found it.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/** Carries the body's value out of the transaction it rolls back. */
class RolledBack<A> {
  constructor(readonly value: A) {}
}

const isRolledBack = (error: unknown): error is RolledBack<unknown> => error instanceof RolledBack

/**
 * `body` in a transaction of `sql` that is always rolled back; succeeds with the body's value, or fails
 * with its error (or the client's).
 *
 * @example const kept = yield* inRolledBackTransaction(sql, Effect.andThen(insertRow, countRows))
 */
export const inRolledBackTransaction = <A, E, R>(sql: SqlClient.SqlClient, body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  sql.withTransaction(Effect.flatMap(body, (value) => Effect.fail(new RolledBack(value)))).pipe(
    Effect.catchIf(isRolledBack, (rolledBack) => Effect.succeed((rolledBack as RolledBack<A>).value))
  ) as Effect.Effect<A, E | SqlError, R>
