/**
 * A worked vendor adapter: SQLite compiled to WebAssembly (sql.js), certified with
 *
 *   npx durable-conformance certify --adapter ./examples/sqljs-adapter/index.ts
 *
 * Everything a vendor writes is here and in `SqljsClient.ts`: load the engine once (`make`), open a
 * fresh in-memory database per run (`open`, closed when the run's scope closes), provide the platform
 * alarm slot (emulated in a table written through the same client, so it rolls back with
 * transactions), declare honest capabilities, and report a fingerprint read from the live engine.
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import initSqlJs, { type Database, type SqlJsStatic } from "sql.js"
import {
  type AdapterCapabilities,
  type AdapterDefinition,
  AdapterError,
  type AdapterFingerprint,
  type IsolatedDatabase,
  type StorageAdapter
} from "../../adapters/contract.ts"
import { createPlatformAlarmTable, emulatedPlatformAlarm } from "../../adapters/emulatedPlatformAlarm.ts"
import { makeSqljsClient } from "./SqljsClient.ts"

/** Name on the command line and in reports. */
export const SQLJS_ADAPTER_NAME = "sqljs"

/** The sql.js release this adapter was written and certified against. */
export const SQLJS_ADAPTER_VERSION = "sql.js 1.17.0"

/**
 * One in-memory sql.js database is one connection: transactions run one after another, so there are
 * no independent connections, row locks or snapshot reads. Savepoints work; the alarm slot is a table.
 */
export const sqljsCapabilities: AdapterCapabilities = {
  independentConnections: false,
  rowLocks: false,
  snapshotReads: false,
  savepoints: true,
  platformAlarm: "emulated"
}

const adapterError = (message: string, hint: string, cause?: unknown) =>
  new AdapterError({ adapter: SQLJS_ADAPTER_NAME, message, hint, cause })

const describe = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

const loadEngine = Effect.tryPromise({
  try: () => initSqlJs(),
  catch: (cause) => adapterError(`could not load the sql.js WebAssembly engine: ${describe(cause)}`, "install sql.js (npm install sql.js) and check node_modules/sql.js/dist/sql-wasm.wasm exists", cause)
})

/** A fresh empty database with foreign keys enforced, closed when `scope` closes. */
const openDatabase = (engine: SqlJsStatic): Effect.Effect<Database, AdapterError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const db = new engine.Database()
        db.run("PRAGMA foreign_keys = ON")
        return db
      },
      catch: (cause) => adapterError(`could not open an in-memory sql.js database: ${describe(cause)}`, "the WebAssembly heap may be exhausted; close databases you no longer need", cause)
    }),
    (db) => Effect.sync(() => db.close())
  )

const readEngineVersion = (engine: SqlJsStatic): Effect.Effect<string, AdapterError> =>
  Effect.try({
    try: () => {
      const db = new engine.Database()
      try {
        const [result] = db.exec("select sqlite_version()")
        return String(result?.values[0]?.[0])
      } finally {
        db.close()
      }
    },
    catch: (cause) => adapterError(`could not read sqlite_version() from sql.js: ${describe(cause)}`, "reinstall sql.js", cause)
  })

/** Builds the adapter over a loaded engine. Exposed so tests and wrappers can reuse one engine. */
export const makeSqljsAdapter = (engine: SqlJsStatic, name: string = SQLJS_ADAPTER_NAME): StorageAdapter => {
  const fingerprint: Effect.Effect<AdapterFingerprint, AdapterError> = Effect.map(readEngineVersion(engine), (engineVersion) => ({
    name,
    adapterVersion: SQLJS_ADAPTER_VERSION,
    engine: "sqlite (sql.js)",
    engineVersion,
    dialect: "sqlite",
    capabilities: sqljsCapabilities
  }))
  const open = (): Effect.Effect<IsolatedDatabase, AdapterError, Scope.Scope> =>
    Effect.gen(function*() {
      const db = yield* openDatabase(engine)
      const sql = yield* makeSqljsClient(db)
      yield* createPlatformAlarmTable(sql).pipe(
        Effect.mapError((cause) => adapterError(`could not create the platform alarm table: ${cause.message}`, "the database must accept CREATE TABLE", cause))
      )
      return { sql, connections: [sql], platformAlarm: emulatedPlatformAlarm(sql) }
    })
  return { name, dialect: "sqlite", capabilities: sqljsCapabilities, fingerprint, open }
}

/** The adapter definition `certify --adapter` loads (the module's default export). */
export const sqljsAdapter: AdapterDefinition = {
  name: SQLJS_ADAPTER_NAME,
  description: "SQLite compiled to WebAssembly (sql.js), a fresh in-memory database per run; platform alarm emulated",
  make: Effect.map(loadEngine, (engine) => makeSqljsAdapter(engine))
}

export default sqljsAdapter
