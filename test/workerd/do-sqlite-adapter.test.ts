/**
 * The do-sqlite adapter in real workerd: raw Durable Object SQLite, the effect/sql client (error
 * classification, transactions that roll back writes and alarm changes), the native platform alarm,
 * fresh isolation between opens, and real alarm delivery to registered handlers.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test"
import type { DurableObjectState, DurableObjectStorage } from "@cloudflare/workers-types"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeDoSqliteAdapter, NATIVE_ALARM_HORIZON_MS, nativePlatformAlarm, WORKERD_MAX_ALARM_MS } from "../../adapters/do-sqlite/adapter.ts"
import { registerAlarmHandler } from "../../hosts/do-sqlite/alarmHandlers.ts"
import type { IsolatedDatabase, StorageAdapter } from "../../adapters/contract.ts"

interface TestEnv {
  readonly CONFORMANCE: DurableObjectNamespace
}
const namespace = (env as unknown as TestEnv).CONFORMANCE
const stubs: Array<DurableObjectStub> = []
const stubFor = (name: string): DurableObjectStub => {
  const stub = namespace.get(namespace.idFromName(name))
  stubs.push(stub)
  return stub
}

/** Durable Object alarms survive between tests: clear every object a test touched. */
afterEach(async () => {
  for (const stub of stubs.splice(0)) {
    await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm())
  }
})

/** Runs `body` inside the object `name` with the adapter bound to it. */
const inObject = <A>(
  name: string,
  body: (adapter: StorageAdapter, state: DurableObjectState) => Effect.Effect<A, unknown, Scope.Scope>
): Promise<A> =>
  runInDurableObject(stubFor(name), (_instance, state) =>
    Effect.runPromise(Effect.scoped(body(makeDoSqliteAdapter(state as unknown as DurableObjectState), state as unknown as DurableObjectState))))

/** Runs `body` with a freshly opened database of the object `name`. */
const withDatabase = <A>(name: string, body: (db: IsolatedDatabase, state: DurableObjectState) => Effect.Effect<A, unknown, Scope.Scope>) =>
  inObject(name, (adapter, state) => Effect.flatMap(adapter.open(), (db) => body(db, state)))

const keys = (db: IsolatedDatabase) =>
  db.sql<{ k: string }>`SELECT k FROM kv ORDER BY k`.pipe(Effect.map((rows) => rows.map((row) => row.k)))

describe("Durable Object SQLite, raw", () => {
  it("stores rows through ctx.storage.sql and forbids BEGIN", async () => {
    const result = await runInDurableObject(stubFor("raw"), (_instance, state) => {
      const sql = state.storage.sql
      sql.exec("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v INTEGER)")
      sql.exec("DELETE FROM t")
      sql.exec("INSERT INTO t VALUES (?, ?)", "a", 1)
      let beginError = ""
      try {
        sql.exec("BEGIN")
      } catch (error) {
        beginError = String(error)
      }
      return { rows: sql.exec("SELECT k, v FROM t").toArray(), beginError }
    })
    expect(result.rows).toEqual([{ k: "a", v: 1 }])
    expect(result.beginError).toMatch(/transaction/)
  })
})

describe("do-sqlite adapter", () => {
  it("reports its fingerprint and capabilities", async () => {
    const fingerprint = await inObject("fingerprint", (adapter) => adapter.fingerprint)
    expect(fingerprint).toMatchObject({
      name: "do-sqlite",
      engine: "do-sqlite",
      dialect: "sqlite",
      capabilities: { independentConnections: false, rowLocks: false, snapshotReads: false, savepoints: true, platformAlarm: "native" }
    })
    expect(fingerprint.adapterVersion).toMatch(/^@effect\/sql-sqlite-do \d/)
  })

  it("opens a fresh empty database every time, alarm included", async () => {
    await withDatabase("fresh", (db, state) =>
      Effect.gen(function*() {
        yield* db.sql`CREATE TABLE kv (k TEXT PRIMARY KEY)`
        yield* db.sql`INSERT INTO kv (k) VALUES ('left-over')`
        yield* db.sql`CREATE TABLE parent (id INTEGER PRIMARY KEY AUTOINCREMENT)`
        yield* db.sql`CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent (id))`
        yield* db.sql`INSERT INTO parent (id) VALUES (1)`
        yield* db.sql`INSERT INTO child (id, parent_id) VALUES (1, 1)`
        yield* db.sql`CREATE INDEX child_parent ON child (parent_id)`
        yield* db.sql`CREATE VIEW kv_view AS SELECT k FROM kv`
        yield* db.sql`CREATE TRIGGER kv_trigger AFTER INSERT ON kv BEGIN DELETE FROM child; END`
        yield* Effect.promise(() => state.storage.put("kv-key", 1))
        yield* db.platformAlarm.set(5_000)
      }))
    const second = await withDatabase("fresh", (db, state) =>
      Effect.gen(function*() {
        const objects = yield* db.sql<{ name: string }>`SELECT name FROM sqlite_master WHERE name NOT LIKE '_cf_%'`
        const keys = yield* Effect.promise(() => state.storage.list())
        return { objects: objects.map((t) => t.name), keys: keys.size, alarm: yield* db.platformAlarm.get, connections: db.connections.length }
      }))
    expect(second).toEqual({ objects: [], keys: 0, alarm: null, connections: 1 })
  })

  it("refuses a second open while a database of the object is open", async () => {
    const exit = await inObject("double-open", (adapter, state) =>
      Effect.gen(function*() {
        yield* adapter.open()
        // Another adapter value bound to the same object shares its one database.
        return yield* Effect.exit(makeDoSqliteAdapter(state).open())
      }))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toMatch(/already open/)
    // After the first scope closed, opening works again.
    const reopened = await inObject("double-open", (adapter) => Effect.as(adapter.open(), "ok"))
    expect(reopened).toBe("ok")
  })

  it("classifies unique and other constraint violations", async () => {
    const reasons = await withDatabase("constraints", (db) =>
      Effect.gen(function*() {
        yield* db.sql`CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL, u TEXT UNIQUE)`
        yield* db.sql`INSERT INTO kv (k, v, u) VALUES ('a', 1, 'x')`
        const primaryKey = yield* Effect.flip(db.sql`INSERT INTO kv (k, v) VALUES ('a', 2)`)
        const unique = yield* Effect.flip(db.sql`INSERT INTO kv (k, v, u) VALUES ('b', 2, 'x')`)
        const notNull = yield* Effect.flip(db.sql`INSERT INTO kv (k, v) VALUES ('c', NULL)`)
        const syntax = yield* Effect.flip(db.sql`SELEC 1`)
        return [primaryKey, unique, notNull, syntax].map((error) => error.reason._tag)
      }))
    expect(reasons).toEqual(["UniqueViolation", "UniqueViolation", "ConstraintError", "UnknownError"])
  })

  it("reads, sets and deletes the native platform alarm", async () => {
    const result = await withDatabase("alarm", (db, state) =>
      Effect.gen(function*() {
        const initially = yield* db.platformAlarm.get
        yield* db.platformAlarm.set(1_767_225_600_000)
        const afterSet = yield* db.platformAlarm.get
        const raw = yield* Effect.promise(() => state.storage.getAlarm())
        yield* db.platformAlarm.set(1_767_225_601_000)
        const afterMove = yield* db.platformAlarm.get
        yield* db.platformAlarm.delete
        const afterDelete = yield* db.platformAlarm.get
        const latest = WORKERD_MAX_ALARM_MS - NATIVE_ALARM_HORIZON_MS
        yield* db.platformAlarm.set(latest)
        const atLatest = yield* db.platformAlarm.get
        const beyond = yield* Effect.flip(db.platformAlarm.set(latest + 1))
        const negative = yield* Effect.flip(db.platformAlarm.set(-1))
        return { initially, afterSet, raw, afterMove, afterDelete, atLatest: atLatest === latest, beyond: beyond.message, negative: negative.message }
      }))
    expect(result).toEqual({
      initially: null,
      afterSet: 1_767_225_600_000,
      // The slot holds the virtual time shifted into the real future, so workerd never fires it on its own.
      raw: 1_767_225_600_000 + NATIVE_ALARM_HORIZON_MS,
      afterMove: 1_767_225_601_000,
      afterDelete: null,
      atLatest: true,
      beyond: expect.stringMatching(/holds times from 0 to/),
      negative: expect.stringMatching(/holds times from 0 to/)
    })
  })

  it("rolls back a write and a setAlarm together when the transaction fails, and keeps them when it commits", async () => {
    const result = await withDatabase("rollback", (db) =>
      Effect.gen(function*() {
        yield* db.sql`CREATE TABLE kv (k TEXT PRIMARY KEY)`
        const failed = yield* Effect.exit(db.sql.withTransaction(Effect.gen(function*() {
          yield* db.sql`INSERT INTO kv (k) VALUES ('failed')`
          yield* db.platformAlarm.set(7_000)
          const seenInside = yield* db.platformAlarm.get
          return yield* Effect.fail({ seenInside })
        })))
        const afterFailure = { keys: yield* keys(db), alarm: yield* db.platformAlarm.get }
        yield* Effect.exit(db.sql.withTransaction(Effect.andThen(db.sql`INSERT INTO kv (k) VALUES ('died')`, Effect.die("crash"))))
        const afterDefect = yield* keys(db)
        yield* db.sql.withTransaction(Effect.andThen(db.sql`INSERT INTO kv (k) VALUES ('kept')`, db.platformAlarm.set(8_000)))
        return { failed: Exit.isFailure(failed), afterFailure, afterDefect, committed: { keys: yield* keys(db), alarm: yield* db.platformAlarm.get } }
      }))
    expect(result).toEqual({
      failed: true,
      afterFailure: { keys: [], alarm: null },
      afterDefect: [],
      committed: { keys: ["kept"], alarm: 8_000 }
    })
  })

  it("rolls back a nested transaction alone (savepoint) and everything when the outer one fails", async () => {
    const result = await withDatabase("nested", (db) =>
      Effect.gen(function*() {
        yield* db.sql`CREATE TABLE kv (k TEXT PRIMARY KEY)`
        yield* db.sql.withTransaction(Effect.gen(function*() {
          yield* db.sql`INSERT INTO kv (k) VALUES ('outer-1')`
          yield* Effect.exit(db.sql.withTransaction(Effect.gen(function*() {
            yield* db.sql`INSERT INTO kv (k) VALUES ('inner')`
            yield* db.platformAlarm.set(9_000)
            return yield* Effect.fail("inner fails")
          })))
          yield* db.sql`INSERT INTO kv (k) VALUES ('outer-2')`
        }))
        const afterInnerFailure = { keys: yield* keys(db), alarm: yield* db.platformAlarm.get }
        yield* Effect.exit(db.sql.withTransaction(Effect.gen(function*() {
          yield* db.sql.withTransaction(db.sql`INSERT INTO kv (k) VALUES ('inner-committed')`)
          return yield* Effect.fail("outer fails")
        })))
        return { afterInnerFailure, afterOuterFailure: yield* keys(db) }
      }))
    expect(result).toEqual({
      afterInnerFailure: { keys: ["outer-1", "outer-2"], alarm: null },
      afterOuterFailure: ["outer-1", "outer-2"]
    })
  })

  it("fails and rolls back a transaction that leaves a deferred foreign key dangling, instead of resetting the object", async () => {
    const result = await withDatabase("deferred-fk", (db) =>
      Effect.gen(function*() {
        yield* db.sql`CREATE TABLE parent (id INTEGER PRIMARY KEY)`
        yield* db.sql`CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`
        const dangling = yield* Effect.flip(db.sql.withTransaction(Effect.gen(function*() {
          yield* db.sql`INSERT INTO parent (id) VALUES (1)`
          yield* db.sql`INSERT INTO child (id, parent_id) VALUES (10, 2)`
        })))
        const afterFailure = yield* db.sql<{ n: number }>`SELECT (SELECT COUNT(*) FROM parent) + (SELECT COUNT(*) FROM child) AS n`
        // Resolved inside the transaction: commits.
        yield* db.sql.withTransaction(Effect.gen(function*() {
          yield* db.sql`INSERT INTO child (id, parent_id) VALUES (11, 3)`
          yield* db.sql`INSERT INTO parent (id) VALUES (3)`
        }))
        const committed = yield* db.sql<{ id: number }>`SELECT id FROM child`
        return { reason: dangling.reason._tag, afterFailure: afterFailure[0]?.n, committed: committed.map((row) => row.id) }
      }))
    expect(result).toEqual({ reason: "ConstraintError", afterFailure: 0, committed: [11] })
  })

  it("rolls back an interrupted transaction and makes other statements wait for it", async () => {
    const result = await withDatabase("interrupt", (db) =>
      Effect.gen(function*() {
        yield* db.sql`CREATE TABLE kv (k TEXT PRIMARY KEY)`
        const inside = yield* Deferred.make<void>()
        const transaction = yield* Effect.forkChild(db.sql.withTransaction(Effect.gen(function*() {
          yield* db.sql`INSERT INTO kv (k) VALUES ('interrupted')`
          yield* Deferred.succeed(inside, undefined)
          return yield* Effect.never
        })))
        yield* Deferred.await(inside)
        const outside = yield* Effect.forkChild(db.sql`INSERT INTO kv (k) VALUES ('outside')`)
        yield* Effect.yieldNow
        const outsideDoneEarly = outside.pollUnsafe() !== undefined
        yield* Fiber.interrupt(transaction)
        yield* Fiber.join(outside)
        return { outsideDoneEarly, keys: yield* keys(db) }
      }))
    expect(result).toEqual({ outsideDoneEarly: false, keys: ["outside"] })
  })

  it("delivers a real platform alarm to the registered handler", async () => {
    const stub = stubFor("delivery")
    const deliveries: Array<{ readonly retryCount: number; readonly scheduledAtMs: number | null }> = []
    const unregister = registerAlarmHandler("test-delivery", (delivery) =>
      Effect.gen(function*() {
        deliveries.push({ retryCount: delivery.retryCount, scheduledAtMs: delivery.scheduledAtMs })
        yield* delivery.sql`CREATE TABLE IF NOT EXISTS deliveries (n INTEGER NOT NULL)`
        yield* delivery.sql`INSERT INTO deliveries (n) VALUES (${deliveries.length})`
      }))
    try {
      await runInDurableObject(stub, (_instance, state) => Effect.runPromise(nativePlatformAlarm(state.storage as unknown as DurableObjectStorage).set(3_000)))
      expect(await runDurableObjectAlarm(stub)).toBe(true)
      const after = await runInDurableObject(stub, async (_instance, state) => ({
        rows: state.storage.sql.exec("SELECT n FROM deliveries").toArray(),
        alarm: await state.storage.getAlarm()
      }))
      expect(deliveries).toHaveLength(1)
      expect(after).toEqual({ rows: [{ n: 1 }], alarm: null })
      // Delivered alarms are consumed: nothing left to run.
      expect(await runDurableObjectAlarm(stub)).toBe(false)
    } finally {
      unregister()
    }
  })

  it("makes alarm() fail when a handler fails, naming the handler", async () => {
    const stub = stubFor("failing-delivery")
    const unregister = registerAlarmHandler("test-failing", () => Effect.fail("handler refused"))
    try {
      await runInDurableObject(stub, (_instance, state) => Effect.runPromise(nativePlatformAlarm(state.storage as unknown as DurableObjectStorage).set(4_000)))
      const outcome = await runDurableObjectAlarm(stub).then(() => "delivered", (error: unknown) => String(error))
      expect(outcome).toMatch(/platform alarm handler failed: handler test-failing: handler refused/)
    } finally {
      unregister()
    }
  })
})
