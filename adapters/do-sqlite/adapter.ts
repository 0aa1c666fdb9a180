/**
 * The `do-sqlite` storage adapter: Cloudflare Durable Object SQLite, inside real workerd.
 *
 * It only works where `ctx.storage.sql` exists, that is inside a Durable Object; the property runner
 * runs there too (see `ConformanceObject.ts`). From Node, `host.ts` starts workerd through Miniflare
 * and asks the object to run properties.
 *
 * One Durable Object is one database, so `open()` wipes the object's storage (tables and platform
 * alarm) and allows one open database at a time. The platform alarm is the object's real alarm.
 */
import type { DurableObjectState, DurableObjectStorage } from "@cloudflare/workers-types"
import * as SqliteClient from "@effect/sql-sqlite-do/SqliteClient"
import doSqlitePackage from "@effect/sql-sqlite-do/package.json" with { type: "json" }
import { Context, Effect } from "effect"
import type { Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql"
import { ConstraintError, SqlError, UnknownError } from "effect/sql/SqlError"
import type { AdapterCapabilities, AdapterFingerprint, IsolatedDatabase, PlatformAlarm, StorageAdapter } from "../contract.ts"
import { AdapterError } from "../contract.ts"
import { classifyingStorage } from "./classifyingStorage.ts"

/** Adapter name used on the command line and in reports. */
export const DO_SQLITE_ADAPTER_NAME = "do-sqlite"

/** What Durable Object SQLite can do (checked by the workerd tests in `test/workerd/`). */
export const doSqliteCapabilities: AdapterCapabilities = {
  // One object, one SQLite connection; requests to it are serialized by the runtime.
  independentConnections: false,
  rowLocks: false,
  snapshotReads: false,
  // Nested `withTransaction` calls become nested `storage.transaction()` calls, which roll back alone.
  savepoints: true,
  platformAlarm: "native"
}

/**
 * Shift between the harness's virtual epoch and the object's real alarm slot: 100 years.
 *
 * Virtual time lies in the real past (runs start at 2026-01-01; properties may set any time from 0),
 * and workerd delivers an alarm whose time has passed at once, on its own, deleting it from the slot. Storing `virtualMs + horizon` keeps every alarm a run sets in the
 * real future, so only an explicit delivery (`runDurableObjectAlarm`) fires it.
 */
export const NATIVE_ALARM_HORIZON_MS = 3_155_760_000_000

/** Options for `makeDoSqliteAdapter`. */
export interface DoSqliteAdapterOptions {
  /** Version of the workerd binary, for the fingerprint (workerd cannot report it from inside). */
  readonly workerdVersion?: string
  /** See `NATIVE_ALARM_HORIZON_MS`; 0 stores virtual times unchanged. */
  readonly alarmHorizonMs?: number
}

const adapterError = (message: string, hint: string, cause?: unknown) =>
  new AdapterError({ adapter: DO_SQLITE_ADAPTER_NAME, message, hint, cause })

const storageSqlError = (operation: string) => (cause: unknown) =>
  new SqlError({ reason: new UnknownError({ cause, message: `Durable Object storage ${operation} failed`, operation }) })

/** How deep the current fiber is inside `withTransaction` of a do-sqlite client (0: outside). */
const TransactionDepth = Context.Reference<number>("durable-conformance/adapters/do-sqlite/TransactionDepth", {
  defaultValue: () => 0
})

interface ForeignKeyViolation {
  readonly table: string
  readonly rowid: number | null
  readonly parent: string
}

/**
 * Fails when the database holds foreign-key violations, as SQLite's COMMIT does for deferred foreign
 * keys. Durable Object transactions are savepoints inside the object's implicit transaction, so a
 * deferred violation is not reported when `withTransaction` ends: workerd finds it when it commits
 * the implicit transaction later, then resets the object and rolls it back to its last good state.
 * Checking before the outermost transaction ends surfaces that failed commit where it belongs.
 */
const failOnForeignKeyViolations = (sql: SqlClient.SqlClient): Effect.Effect<void, SqlError> =>
  sql.unsafe<ForeignKeyViolation>("PRAGMA foreign_key_check").pipe(
    Effect.flatMap((violations) => {
      const first = violations[0]
      if (first === undefined) return Effect.void
      const message = `FOREIGN KEY constraint failed at commit: ${violations.length} row(s), first ${first.table} rowid ${String(first.rowid)} references a missing ${first.parent} row`
      return Effect.fail(new SqlError({ reason: new ConstraintError({ cause: new Error(message), message, operation: "commit" }) }))
    })
  )

/**
 * An `effect/sql` client over the object's SQLite storage (no wiping). Unique and other constraint
 * violations are classified (`UniqueViolation`, `ConstraintError`); `withTransaction` runs inside
 * `storage.transaction()`, so a failure or interruption rolls back every write of the transaction,
 * platform alarm changes included, and a nested one rolls back alone. The outermost transaction
 * fails (and rolls back) when it leaves foreign-key violations, as a SQLite COMMIT would.
 */
export const makeDoSqlClient = (storage: DurableObjectStorage): Effect.Effect<SqlClient.SqlClient, never, Scope.Scope> =>
  Effect.map(
    SqliteClient.make({ storage: classifyingStorage(storage) }).pipe(Effect.provide(Reactivity.layer)),
    (client) => {
      const storageTransaction = client.withTransaction
      const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
        Effect.flatMap(Effect.service(TransactionDepth), (depth) => {
          const body = depth === 0 ? Effect.tap(effect, () => failOnForeignKeyViolations(client)) : effect
          return storageTransaction(Effect.provideService(body, TransactionDepth, depth + 1))
        })
      return Object.assign(client, { withTransaction })
    }
  )

/** Latest time workerd can store in an alarm slot: it keeps alarms as signed 64-bit nanoseconds (2262-04-11). */
export const WORKERD_MAX_ALARM_MS = 9_223_372_036_854

/**
 * The object's real alarm slot, shifted by `horizonMs` (see `NATIVE_ALARM_HORIZON_MS`). It holds
 * virtual times from 0 to `WORKERD_MAX_ALARM_MS - horizonMs` (year 2162 with the default horizon);
 * setting one outside that range fails with a `SqlError` that says so.
 */
export const nativePlatformAlarm = (storage: DurableObjectStorage, horizonMs: number = NATIVE_ALARM_HORIZON_MS): PlatformAlarm => {
  const maxVirtualMs = WORKERD_MAX_ALARM_MS - horizonMs
  return {
    get: Effect.tryPromise({
      try: () => storage.getAlarm(),
      catch: storageSqlError("getAlarm")
    }).pipe(Effect.map((stored) => (stored === null ? null : stored - horizonMs))),
    set: (epochMs: number) => {
      const virtualMs = Math.trunc(epochMs)
      if (!(virtualMs >= 0 && virtualMs <= maxVirtualMs)) {
        const message = `the Durable Object platform alarm holds times from 0 to ${maxVirtualMs} epoch ms, got ${epochMs} ` +
          `(workerd stores alarms as 64-bit nanoseconds, and do-sqlite shifts virtual time ${horizonMs} ms into the real future)`
        return Effect.fail(new SqlError({ reason: new UnknownError({ cause: new RangeError(message), message, operation: "setAlarm" }) }))
      }
      return Effect.tryPromise({
        try: () => storage.setAlarm(virtualMs + horizonMs),
        catch: storageSqlError("setAlarm")
      })
    },
    delete: Effect.tryPromise({
      try: () => storage.deleteAlarm(),
      catch: storageSqlError("deleteAlarm")
    })
  }
}

/** Quotes an SQL identifier. */
const quoteIdentifier = (name: string): string => `"${name.replaceAll("\"", "\"\"")}"`

/** User tables and views (not SQLite's `sqlite_*` nor workerd's `_cf_*` internals). */
const USER_OBJECTS_QUERY = "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') " +
  "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'"

/**
 * Deletes every table, view, key and the alarm of the object: the state of a never-used object.
 * Tables are dropped one by one with foreign keys deferred (about 1 ms); `deleteAll()` (about 24 ms
 * on this machine) runs only when key-value data exists.
 */
export const wipeStorage = (storage: DurableObjectStorage): Effect.Effect<void, AdapterError> =>
  Effect.tryPromise({
    try: async () => {
      await storage.deleteAlarm()
      storage.transactionSync(() => {
        storage.sql.exec("PRAGMA defer_foreign_keys = ON")
        const objects = storage.sql.exec<{ type: string; name: string }>(USER_OBJECTS_QUERY).toArray()
        for (const { type, name } of objects) if (type === "view") storage.sql.exec(`DROP VIEW IF EXISTS ${quoteIdentifier(name)}`)
        for (const { type, name } of objects) if (type === "table") storage.sql.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(name)}`)
      })
      if ((await storage.list({ limit: 1 })).size > 0) await storage.deleteAll()
    },
    catch: (cause) =>
      adapterError(
        "could not wipe the Durable Object's storage",
        "check that the Durable Object class is declared in new_sqlite_classes (SQLite-backed)",
        cause
      )
  })

/** Objects whose one database is open now, whichever adapter value opened it. */
const storagesWithOpenDatabase = new WeakSet<DurableObjectStorage>()

/**
 * The `do-sqlite` adapter bound to one Durable Object (`ctx` of the object the runner runs in).
 * `open()` gives a fresh empty database by wiping the object's storage, at open and again at close.
 */
export const makeDoSqliteAdapter = (ctx: DurableObjectState, options: DoSqliteAdapterOptions = {}): StorageAdapter => {
  const storage = ctx.storage
  const horizonMs = options.alarmHorizonMs ?? NATIVE_ALARM_HORIZON_MS

  const fingerprint: AdapterFingerprint = {
    name: DO_SQLITE_ADAPTER_NAME,
    adapterVersion: `@effect/sql-sqlite-do ${doSqlitePackage.version}`,
    engine: "do-sqlite",
    // `sqlite_version()` is not authorized inside Durable Objects, so the workerd version stands for it.
    engineVersion: options.workerdVersion === undefined ? "workerd (version not reported)" : `workerd ${options.workerdVersion}`,
    dialect: "sqlite",
    capabilities: doSqliteCapabilities
  }

  const claim = Effect.suspend(() => {
    if (storagesWithOpenDatabase.has(storage)) {
      return Effect.fail(adapterError(
        "a do-sqlite database is already open in this Durable Object",
        "a Durable Object holds one database: close the previous scope before opening another"
      ))
    }
    storagesWithOpenDatabase.add(storage)
    return Effect.void
  })
  const releaseClaim = Effect.sync(() => {
    storagesWithOpenDatabase.delete(storage)
  })

  const open = (): Effect.Effect<IsolatedDatabase, AdapterError, Scope.Scope> =>
    Effect.gen(function*() {
      yield* Effect.acquireRelease(
        Effect.andThen(claim, wipeStorage(storage).pipe(Effect.onError(() => releaseClaim))),
        () => Effect.ignore(wipeStorage(storage)).pipe(Effect.andThen(releaseClaim))
      )
      const sql = yield* makeDoSqlClient(storage)
      return { sql, connections: [sql], platformAlarm: nativePlatformAlarm(storage, horizonMs) }
    })

  return {
    name: DO_SQLITE_ADAPTER_NAME,
    dialect: "sqlite",
    capabilities: doSqliteCapabilities,
    fingerprint: Effect.succeed(fingerprint),
    open
  }
}
