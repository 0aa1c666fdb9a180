/**
 * An `effect/sql` `SqlClient` over an in-process PGlite instance, bound to one schema.
 *
 * PGlite is a single Postgres session. Several clients (one per isolated database, each bound to its
 * own schema) share it through one `PgliteSession`: a semaphore that a statement holds while it runs
 * and a transaction holds from BEGIN to COMMIT/ROLLBACK, so two fibers can never interleave
 * statements inside one transaction. Before a client uses the session it points `search_path` at its
 * own schema (only when another client moved it), so unqualified table names resolve per database.
 *
 * Nested `withTransaction` calls become savepoints. A COMMIT that Postgres turns into a ROLLBACK (a
 * statement inside had failed and the error was caught) fails the transaction instead of passing
 * silently.
 *
 * Session state other than `search_path` is shared by every database of one instance: statements
 * must not change `search_path` themselves, and TEMP tables (which live in the session, not in the
 * schema) are visible to every run; the contract properties use neither.
 *
 * int8: PGlite parses int8 to a `number` when it lies in [-(2^53-1), 2^53-1] and to an exact `bigint`
 * otherwise; we keep that rule (the sqlite adapter applies the same one), so nothing is rounded.
 */
import type { PGlite, Results } from "@electric-sql/pglite"
import { TransactionAbortedError } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Effect, Semaphore, Stream } from "effect"
import type { Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import type { SqlError } from "effect/sql/SqlError"
import { abortedCommitError, pgliteError } from "./errors.ts"

/** One PGlite instance shared by every client bound to one of its schemas. */
export interface PgliteSession {
  readonly pg: PGlite
  /** Held by a statement while it runs and by a transaction from BEGIN to its end. */
  readonly semaphore: Semaphore.Semaphore
  /** The schema `search_path` points at right now (undefined: the instance default). */
  currentSchema: string | undefined
}

/** Creates the shared session of `pg`. */
export const makePgliteSession = (pg: PGlite): PgliteSession => ({
  pg,
  semaphore: Semaphore.makeUnsafe(1),
  currentSchema: undefined
})

/** Quotes a Postgres identifier. */
export const quoteIdentifier = (name: string): string => `"${name.replaceAll("\"", "\"\"")}"`

const query = (pg: PGlite, sql: string, params: ReadonlyArray<unknown>, operation: string) =>
  Effect.tryPromise({
    try: () => pg.query<Record<string, unknown>>(sql, params as Array<unknown>),
    catch: (cause) => cause instanceof TransactionAbortedError ? abortedCommitError() : pgliteError(cause, operation)
  })

const queryValues = (pg: PGlite, sql: string, params: ReadonlyArray<unknown>) =>
  Effect.tryPromise({
    try: () => pg.query<Array<unknown>>(sql, params as Array<unknown>, { rowMode: "array" }),
    catch: (cause) => pgliteError(cause, "executeValues")
  }).pipe(Effect.map((result) => result.rows))

/** The driver-facing `Connection` over `pg` (the caller must hold the session semaphore). */
export const makePgliteConnection = (pg: PGlite): Connection => {
  const rows = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(query(pg, sql, params, "execute"), (result) => result.rows)
  return {
    execute: (sql, params, transformRows) =>
      transformRows === undefined ? rows(sql, params) : Effect.map(rows(sql, params), transformRows),
    executeRaw: (sql, params) => query(pg, sql, params, "execute"),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows === undefined ? rows(sql, params) : Effect.map(rows(sql, params), transformRows),
    executeValues: (sql, params) => queryValues(pg, sql, params),
    executeValuesUnprepared: (sql, params) => queryValues(pg, sql, params),
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(
        Effect.map(rows(sql, params), (all) => Stream.fromIterable(transformRows === undefined ? all : transformRows(all)))
      )
  }
}

/** Postgres answers COMMIT of a failed transaction with the command tag ROLLBACK: surface it. */
const commit = (connection: Connection): Effect.Effect<void, SqlError> =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    (result as Results).command === "ROLLBACK" ? Effect.fail(abortedCommitError()) : Effect.void)

/**
 * A `SqlClient` whose statements run in `schema` of the session's PGlite instance. The schema must
 * exist; the caller owns it (creates and drops it).
 *
 * @example
 * const session = makePgliteSession(await PGlite.create())
 * const sql = yield* makePgliteClient(session, "run_1")
 */
export const makePgliteClient = (
  session: PgliteSession,
  schema: string
): Effect.Effect<SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const connection = makePgliteConnection(session.pg)
    const setPath = `SET search_path TO ${quoteIdentifier(schema)}`
    const ready: Effect.Effect<Connection, SqlError> = Effect.suspend(() =>
      session.currentSchema === schema
        ? Effect.succeed(connection)
        : query(session.pg, setPath, [], "set search_path").pipe(
          Effect.map(() => {
            session.currentSchema = schema
            return connection
          })
        )
    )
    const lease: Effect.Effect<Connection, SqlError, Scope.Scope> = Effect.uninterruptibleMask((restore) =>
      Effect.andThen(restore(session.semaphore.takeScoped(1)), ready)
    )
    const reactivity = yield* Reactivity.make
    return yield* SqlClient.make({
      acquirer: lease,
      transactionAcquirer: lease,
      borrower: (f) => session.semaphore.withPermit(Effect.flatMap(ready, f)),
      compiler: PgClient.makeCompiler(),
      driver: "pglite",
      prepareTransactionControls: true,
      commit,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", schema]]
    }).pipe(Effect.provideService(Reactivity.Reactivity, reactivity))
  })
