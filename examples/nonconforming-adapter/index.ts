/**
 * A deliberately NON-conforming vendor adapter, to show what a failing certificate looks like:
 *
 *   npx durable-conformance certify --adapter ./examples/nonconforming-adapter/index.ts --out nonconforming-certificate
 *
 * It is the sql.js adapter (`../sqljs-adapter`) with two bugs real drivers have had:
 *
 * 1. Integers are read as 32-bit (as a driver calling `sqlite3_column_int` instead of
 *    `sqlite3_column_int64` would): anything above 2^31-1 wraps around. Expected to fail ADP-004, and
 *    every alarms requirement that reads back an epoch-millisecond time (about 1.7e12, far above 2^31).
 * 2. A failed transaction is ended with COMMIT instead of ROLLBACK, so writes made before the failing
 *    statement are kept. Expected to fail ADP-001 (and ADP-011/ADP-013 when nested or alarm writes are
 *    involved).
 *
 * The certificate lists each failing requirement with the explanation of its minimized
 * counterexample and a replay token (`durable-conformance replay <token> --step`).
 */
import { Effect, Semaphore } from "effect"
import type { Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, Statement } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import initSqlJs, { type SqlJsStatic } from "sql.js"
import { type AdapterDefinition, AdapterError, type IsolatedDatabase, type StorageAdapter } from "../../adapters/contract.ts"
import { createPlatformAlarmTable, emulatedPlatformAlarm } from "../../adapters/emulatedPlatformAlarm.ts"
import { makeSqljsAdapter } from "../sqljs-adapter/index.ts"
import { makeSqljsConnection } from "../sqljs-adapter/SqljsClient.ts"

/** Name on the command line and in reports. */
export const NONCONFORMING_ADAPTER_NAME = "sqljs-int32-no-rollback"

/** BUG 1: keeps only the low 32 bits of every integer read back (two's complement). */
const readAsInt32 = (value: unknown): unknown =>
  typeof value === "number" && Number.isInteger(value) ? value | 0 : typeof value === "bigint" ? Number(BigInt.asIntN(32, value)) : value

const truncateRows = (rows: ReadonlyArray<any>): ReadonlyArray<any> =>
  rows.map((row) => {
    if (Array.isArray(row)) return row.map(readAsInt32)
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(row as Record<string, unknown>)) out[key] = readAsInt32(value)
    return out
  })

const int32Connection = (connection: Connection): Connection => ({
  ...connection,
  execute: (sql, params, transformRows) =>
    Effect.map(connection.execute(sql, params, undefined), (rows) => (transformRows === undefined ? truncateRows(rows) : transformRows(truncateRows(rows)))),
  executeUnprepared: (sql, params, transformRows) =>
    Effect.map(connection.executeUnprepared(sql, params, undefined), (rows) =>
      transformRows === undefined ? truncateRows(rows) : transformRows(truncateRows(rows))),
  executeValues: (sql, params) => Effect.map(connection.executeValues(sql, params), (rows) => truncateRows(rows) as ReadonlyArray<ReadonlyArray<unknown>>)
})

/** Builds the broken adapter over a loaded sql.js engine. */
export const makeNonconformingAdapter = (engine: SqlJsStatic): StorageAdapter => {
  const base = makeSqljsAdapter(engine, NONCONFORMING_ADAPTER_NAME)
  const open = (): Effect.Effect<IsolatedDatabase, AdapterError, Scope.Scope> =>
    Effect.gen(function*() {
      const db = yield* Effect.acquireRelease(Effect.sync(() => new engine.Database()), (db) => Effect.sync(() => db.close()))
      db.run("PRAGMA foreign_keys = ON")
      const connection = int32Connection(makeSqljsConnection(db))
      const acquirers = SqlClient.makeSqliteAcquirers({ connection: Effect.succeed(connection), semaphore: yield* Semaphore.make(1) })
      const sql = yield* SqlClient.make({
        acquirer: acquirers.acquirer,
        borrower: acquirers.borrower,
        transactionAcquirer: acquirers.transactionAcquirer,
        onCommitFailure: acquirers.onCommitFailure,
        compiler: Statement.makeCompilerSqlite(),
        driver: "sql.js (int32, no rollback)",
        // BUG 2: the failure path of a top-level transaction commits what was written so far.
        rollback: "COMMIT",
        releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
        spanAttributes: []
      }).pipe(Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make))
      yield* createPlatformAlarmTable(sql).pipe(
        Effect.mapError((cause) => new AdapterError({ adapter: NONCONFORMING_ADAPTER_NAME, message: `could not create the platform alarm table: ${cause.message}`, hint: "the database must accept CREATE TABLE", cause }))
      )
      return { sql, connections: [sql], platformAlarm: emulatedPlatformAlarm(sql) }
    })
  return { ...base, open }
}

/** The adapter definition `certify --adapter` loads (the module's default export). */
const nonconformingAdapter: AdapterDefinition = {
  name: NONCONFORMING_ADAPTER_NAME,
  description: "a deliberately broken sql.js adapter: integers read as 32-bit, failed transactions committed",
  make: Effect.map(
    Effect.tryPromise({
      try: () => initSqlJs(),
      catch: (cause) => new AdapterError({ adapter: NONCONFORMING_ADAPTER_NAME, message: `could not load sql.js: ${String(cause)}`, hint: "install sql.js", cause })
    }),
    makeNonconformingAdapter
  )
}

export default nonconformingAdapter
