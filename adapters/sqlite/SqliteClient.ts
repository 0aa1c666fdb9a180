/**
 * An `effect/sql` `SqlClient` over one better-sqlite3 database.
 *
 * The database is a single connection, shared through a semaphore (`SqlClient.makeSqliteAcquirers`):
 * a transaction holds it from BEGIN to COMMIT/ROLLBACK, so two fibers can never interleave statements
 * inside one transaction. Nested `withTransaction` calls become savepoints. Statements are prepared
 * once and reused (`StatementCache`). Errors are classified (`UniqueViolation` for UNIQUE and PRIMARY
 * KEY duplicates), and integers follow the rule in `values.ts` (exact: number when safe, else bigint).
 */
import type BetterSqlite3 from "better-sqlite3"
import { Effect, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, Statement } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import { sqliteError } from "./errors.ts"
import { DEFAULT_STATEMENT_CACHE_SIZE, StatementCache } from "./StatementCache.ts"
import { fromSqliteRows, fromSqliteValueRows, toSqliteParameters } from "./values.ts"

/** Options of `makeSqliteClient`. */
export interface SqliteClientOptions {
  /** Prepared statements kept per database (default 256). */
  readonly statementCacheSize?: number
}

type Rows = Array<Record<string, unknown>>

const runStatement = (statement: BetterSqlite3.Statement, params: ReadonlyArray<unknown>): Rows => {
  const bound = toSqliteParameters(params)
  if (statement.reader) return fromSqliteRows(statement.all(...bound) as Rows)
  statement.run(...bound)
  return []
}

/** Builds the driver-facing `Connection` of one database. Exposed for tests and wrappers. */
export const makeSqliteConnection = (db: BetterSqlite3.Database, cache: StatementCache): Connection => {
  const execute = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.try({ try: () => runStatement(cache.get(sql), params), catch: (cause) => sqliteError(cause, "execute") })
  const executeUnprepared = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.try({
      try: () => runStatement(db.prepare(sql).safeIntegers(true), params),
      catch: (cause) => sqliteError(cause, "execute")
    })
  const values = (statement: BetterSqlite3.Statement, params: ReadonlyArray<unknown>): Array<Array<unknown>> => {
    if (!statement.reader) {
      statement.run(...toSqliteParameters(params))
      return []
    }
    // A fresh statement: raw mode is sticky, and the cached one must keep returning objects.
    return fromSqliteValueRows(statement.raw(true).all(...toSqliteParameters(params)) as Array<Array<unknown>>)
  }
  return {
    execute: (sql, params, transformRows) =>
      transformRows === undefined ? execute(sql, params) : Effect.map(execute(sql, params), transformRows),
    executeRaw: (sql, params) => execute(sql, params),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows === undefined
        ? executeUnprepared(sql, params)
        : Effect.map(executeUnprepared(sql, params), transformRows),
    executeValues: (sql, params) =>
      Effect.try({
        try: () => values(db.prepare(sql).safeIntegers(true), params),
        catch: (cause) => sqliteError(cause, "executeValues")
      }),
    executeValuesUnprepared: (sql, params) =>
      Effect.try({
        try: () => values(db.prepare(sql).safeIntegers(true), params),
        catch: (cause) => sqliteError(cause, "executeValues")
      }),
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(
        Effect.map(execute(sql, params), (rows) =>
          Stream.fromIterable(transformRows === undefined ? rows : transformRows(rows)))
      )
  }
}

/**
 * A `SqlClient` over `db`. The caller owns `db` (opens and closes it); the client only borrows it.
 *
 * @example
 * const db = new Database(":memory:")
 * const sql = yield* makeSqliteClient(db)
 * yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY)`
 */
export const makeSqliteClient = (
  db: BetterSqlite3.Database,
  options: SqliteClientOptions = {}
): Effect.Effect<SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const cache = new StatementCache(db, options.statementCacheSize ?? DEFAULT_STATEMENT_CACHE_SIZE)
    const connection = makeSqliteConnection(db, cache)
    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore,
      isTransaction: () => db.inTransaction
    })
    const reactivity = yield* Reactivity.make
    return yield* SqlClient.make({
      acquirer: acquirers.acquirer,
      borrower: acquirers.borrower,
      transactionAcquirer: acquirers.transactionAcquirer,
      onCommitFailure: acquirers.onCommitFailure,
      isTransaction: acquirers.isTransaction,
      compiler: Statement.makeCompilerSqlite(),
      driver: "better-sqlite3",
      // SQLite prepares BEGIN/COMMIT/ROLLBACK/SAVEPOINT like any statement.
      prepareTransactionControls: true,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      spanAttributes: [["db.system.name", "sqlite"]]
    }).pipe(Effect.provideService(Reactivity.Reactivity, reactivity))
  })
