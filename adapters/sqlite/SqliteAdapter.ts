/**
 * The built-in `sqlite` storage adapter: better-sqlite3, a fresh in-memory database per run.
 *
 * Each `open()` creates a new database (in memory by default, or a new file at `filename`), turns on
 * foreign-key enforcement, creates the emulated platform alarm table and closes the database when the
 * scope closes (a file it created is deleted). An in-memory database is one connection: transactions
 * are serialized, so the adapter declares no independent connections and no snapshot reads.
 */
import Database from "better-sqlite3"
import { Effect } from "effect"
import type { Scope } from "effect"
import type { SqlClient } from "effect/sql"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import type {
  AdapterCapabilities,
  AdapterDefinition,
  AdapterFingerprint,
  IsolatedDatabase,
  StorageAdapter
} from "../contract.ts"
import { AdapterError } from "../contract.ts"
import { createPlatformAlarmTable, emulatedPlatformAlarm } from "../emulatedPlatformAlarm.ts"
import { makeSqliteClient } from "./SqliteClient.ts"

/** Name used on the command line and in reports. */
export const SQLITE_ADAPTER_NAME = "sqlite"

/** What better-sqlite3 on one database can do. */
export const sqliteCapabilities: AdapterCapabilities = {
  independentConnections: false,
  rowLocks: false,
  snapshotReads: false,
  savepoints: true,
  platformAlarm: "emulated"
}

/** Options of `makeSqliteAdapter`. */
export interface SqliteAdapterOptions {
  /**
   * Path of a database file to create for each run instead of an in-memory database. The file must
   * not exist when a run opens it; it is deleted when the run's scope closes.
   */
  readonly filename?: string
  /** Prepared statements cached per database (default 256). */
  readonly statementCacheSize?: number
}

const betterSqlite3Version = (): string => {
  const require = createRequire(import.meta.url)
  return (require("better-sqlite3/package.json") as { version: string }).version
}

const adapterError = (message: string, hint: string, cause?: unknown) =>
  new AdapterError({ adapter: SQLITE_ADAPTER_NAME, message, hint, cause })

const SIDE_FILES = ["", "-journal", "-wal", "-shm"] as const

const removeDatabaseFiles = (filename: string): void => {
  for (const suffix of SIDE_FILES) fs.rmSync(filename + suffix, { force: true })
}

const openDatabase = (filename: string | undefined): Effect.Effect<Database.Database, AdapterError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        if (filename !== undefined && fs.existsSync(filename)) {
          throw new Error(`database file ${filename} already exists`)
        }
        const db = new Database(filename ?? ":memory:")
        db.pragma("foreign_keys = ON")
        return db
      },
      catch: (cause) =>
        adapterError(
          `could not open a fresh SQLite database${filename === undefined ? " in memory" : ` at ${filename}`}: ${
            cause instanceof Error ? cause.message : String(cause)
          }`,
          filename === undefined
            ? "check that better-sqlite3 is installed and built for this Node version (npm rebuild better-sqlite3)"
            : "choose a path that does not exist yet in a writable directory: each run creates and deletes its own file",
          cause
        )
    }),
    (db) =>
      Effect.sync(() => {
        if (db.inTransaction) db.exec("ROLLBACK")
        db.close()
        if (filename !== undefined) removeDatabaseFiles(filename)
      })
  )

const readEngineVersion = Effect.try({
  try: () => {
    const db = new Database(":memory:")
    try {
      return (db.prepare("select sqlite_version() as version").get() as { version: string }).version
    } finally {
      db.close()
    }
  },
  catch: (cause) =>
    adapterError(
      "could not read sqlite_version() from better-sqlite3",
      "check that better-sqlite3 is installed and built for this Node version (npm rebuild better-sqlite3)",
      cause
    )
})

/**
 * Builds a `sqlite` adapter.
 *
 * @example
 * const adapter = makeSqliteAdapter()             // in memory
 * const onDisk = makeSqliteAdapter({ filename: "/tmp/run.db" })
 */
export const makeSqliteAdapter = (options: SqliteAdapterOptions = {}): StorageAdapter => {
  const clientOptions = options.statementCacheSize === undefined ? {} : { statementCacheSize: options.statementCacheSize }
  const fingerprint: Effect.Effect<AdapterFingerprint, AdapterError> = Effect.map(readEngineVersion, (engineVersion) => ({
    name: SQLITE_ADAPTER_NAME,
    adapterVersion: betterSqlite3Version(),
    engine: "sqlite",
    engineVersion,
    dialect: "sqlite",
    capabilities: sqliteCapabilities
  }))
  const open = (): Effect.Effect<IsolatedDatabase, AdapterError, Scope.Scope> =>
    Effect.gen(function*() {
      const db = yield* openDatabase(options.filename)
      const sql: SqlClient.SqlClient = yield* makeSqliteClient(db, clientOptions)
      yield* createPlatformAlarmTable(sql).pipe(
        Effect.mapError((cause) =>
          adapterError(
            `could not create the platform alarm table: ${cause.message}`,
            "the database must accept CREATE TABLE; check the file is writable",
            cause
          )
        )
      )
      return { sql, connections: [sql], platformAlarm: emulatedPlatformAlarm(sql) }
    })
  return {
    name: SQLITE_ADAPTER_NAME,
    dialect: "sqlite",
    capabilities: sqliteCapabilities,
    fingerprint,
    open
  }
}

/** The built-in `sqlite` adapter definition (in memory). */
export const sqliteAdapter: AdapterDefinition = {
  name: SQLITE_ADAPTER_NAME,
  description: "SQLite through better-sqlite3, a fresh in-memory database per run (platform alarm emulated in a table)",
  make: Effect.sync(() => makeSqliteAdapter())
}
