/**
 * An `effect/sql` `SqlClient` over one sql.js database (SQLite compiled to WebAssembly).
 *
 * This is the part of a vendor adapter that speaks the driver: it turns sql.js's synchronous
 * prepare/bind/step API into the `Connection` effect/sql expects, and gets three things right that the
 * adapter contract checks:
 *
 * - One connection, one transaction at a time: `SqlClient.makeSqliteAcquirers` holds a one-permit
 *   semaphore from BEGIN to COMMIT/ROLLBACK; nested `withTransaction` calls become savepoints.
 * - Errors are classified: sql.js throws `Error`s carrying SQLite's extended `code`, so a duplicate
 *   UNIQUE or PRIMARY KEY value becomes a `UniqueViolation` (ADP-010).
 * - Integers are exact: rows are read with `useBigInt`, then every integer within ±(2^53-1) becomes a
 *   `number` and anything larger stays a `bigint` (ADP-004). Never read INTEGER columns as doubles.
 */
import { Effect, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, Statement } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import { classifySqliteError, SqlError, UniqueViolation } from "effect/sql/SqlError"
import type { Database, Statement as SqljsStatement } from "sql.js"

/** Prepared statements kept per database; older ones are freed. */
export const SQLJS_STATEMENT_CACHE_SIZE = 128

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** Converts one value read from sql.js: safe bigints become numbers, others stay exact bigints. */
export const fromSqljsValue = (value: unknown): unknown =>
  typeof value === "bigint" && value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value

/** Converts one parameter to something sql.js binds (booleans as 0/1, undefined as NULL). */
export const toSqljsParameter = (value: unknown): unknown =>
  typeof value === "boolean" ? (value ? 1 : 0) : value === undefined ? null : value

const PRIMARY_KEY_CODE = "SQLITE_CONSTRAINT_PRIMARYKEY"
const FAILED_PREFIX = "UNIQUE constraint failed:"

/**
 * Wraps an error thrown by sql.js as a classified `SqlError`. SQLite reports a duplicate primary key
 * as `SQLITE_CONSTRAINT_PRIMARYKEY`, which `classifySqliteError` would call a generic constraint
 * error; Postgres reports both kinds as 23505, so we classify both as `UniqueViolation`.
 */
export const sqljsError = (cause: unknown, operation: string): SqlError => {
  const text = cause instanceof Error ? cause.message : String(cause)
  const message = `sql.js: ${operation} failed: ${text}`
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined
  if (code === PRIMARY_KEY_CODE) {
    const at = text.indexOf(FAILED_PREFIX)
    const constraint = at === -1 ? "unknown" : text.slice(at + FAILED_PREFIX.length).trim()
    return new SqlError({ reason: new UniqueViolation({ cause, message, operation, constraint }) })
  }
  return new SqlError({ reason: classifySqliteError(cause, { message, operation }) })
}

/** A bounded cache of prepared statements keyed by SQL text (least recently used evicted and freed). */
class StatementCache {
  private readonly entries = new Map<string, SqljsStatement>()
  constructor(private readonly db: Database, private readonly capacity: number) {}

  get(sql: string): SqljsStatement {
    const cached = this.entries.get(sql)
    if (cached !== undefined) {
      this.entries.delete(sql)
      this.entries.set(sql, cached)
      return cached
    }
    const statement = this.db.prepare(sql)
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.entries().next()
      if (oldest.done !== true) {
        this.entries.delete(oldest.value[0])
        oldest.value[1].free()
      }
    }
    this.entries.set(sql, statement)
    return statement
  }
}

/** Upper bound on rows one statement may return; a runaway query fails instead of exhausting memory. */
export const SQLJS_MAX_ROWS = 1_000_000

/** Runs `statement` with `params` and returns every row as an array of converted values. */
const stepAll = (statement: SqljsStatement, params: ReadonlyArray<unknown>): Array<Array<unknown>> => {
  try {
    statement.bind(params.map(toSqljsParameter) as Parameters<SqljsStatement["bind"]>[0])
    const rows: Array<Array<unknown>> = []
    while (statement.step()) {
      if (rows.length >= SQLJS_MAX_ROWS) throw new Error(`statement returned more than ${SQLJS_MAX_ROWS} rows`)
      // `useBigInt` is in sql.js >= 1.9 but missing from @types/sql.js.
      const row = (statement.get as (params: null, config: { useBigInt: boolean }) => Array<unknown>)(null, { useBigInt: true })
      rows.push(row.map(fromSqljsValue))
    }
    return rows
  } finally {
    statement.reset()
  }
}

const toObjects = (columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>): Array<Record<string, unknown>> =>
  rows.map((row) => {
    const object: Record<string, unknown> = {}
    for (let i = 0; i < columns.length; i++) object[columns[i]!] = row[i]
    return object
  })

/** Builds the driver-facing `Connection` of one sql.js database. */
export const makeSqljsConnection = (db: Database, cacheSize: number = SQLJS_STATEMENT_CACHE_SIZE): Connection => {
  const cache = new StatementCache(db, cacheSize)
  const objects = (prepared: boolean, sql: string, params: ReadonlyArray<unknown>) =>
    Effect.try({
      try: () => {
        const statement = prepared ? cache.get(sql) : db.prepare(sql)
        try {
          return toObjects(statement.getColumnNames(), stepAll(statement, params))
        } finally {
          if (!prepared) statement.free()
        }
      },
      catch: (cause) => sqljsError(cause, "execute")
    })
  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.try({
      try: () => {
        const statement = db.prepare(sql)
        try {
          return stepAll(statement, params)
        } finally {
          statement.free()
        }
      },
      catch: (cause) => sqljsError(cause, "executeValues")
    })
  return {
    execute: (sql, params, transformRows) =>
      transformRows === undefined ? objects(true, sql, params) : Effect.map(objects(true, sql, params), transformRows),
    executeRaw: (sql, params) => objects(true, sql, params),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows === undefined ? objects(false, sql, params) : Effect.map(objects(false, sql, params), transformRows),
    executeValues: values,
    executeValuesUnprepared: values,
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(
        Effect.map(objects(true, sql, params), (rows) => Stream.fromIterable(transformRows === undefined ? rows : transformRows(rows)))
      )
  }
}

/**
 * A `SqlClient` over `db` (the caller opens and closes `db`).
 *
 * @example
 * const SQL = await initSqlJs()
 * const sql = yield* makeSqljsClient(new SQL.Database())
 */
export const makeSqljsClient = (db: Database): Effect.Effect<SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const connection = makeSqljsConnection(db)
    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({ connection: Effect.succeed(connection), semaphore })
    const reactivity = yield* Reactivity.make
    return yield* SqlClient.make({
      acquirer: acquirers.acquirer,
      borrower: acquirers.borrower,
      transactionAcquirer: acquirers.transactionAcquirer,
      onCommitFailure: acquirers.onCommitFailure,
      compiler: Statement.makeCompilerSqlite(),
      driver: "sql.js",
      prepareTransactionControls: true,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      spanAttributes: [["db.system.name", "sqlite"]]
    }).pipe(Effect.provideService(Reactivity.Reactivity, reactivity))
  })
