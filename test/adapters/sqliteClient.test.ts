/**
 * Unit tests of the better-sqlite3 `SqlClient` and the `sqlite` adapter: transactions, savepoints,
 * error classification, integer handling, failed commits, serialization of concurrent transactions,
 * the statement cache and fresh databases.
 */
import Database from "better-sqlite3"
import { Deferred, Effect, Exit, Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter, makeSqliteClient, sqliteAdapter } from "../../adapters/sqlite/index.ts"
import { StatementCache } from "../../adapters/sqlite/StatementCache.ts"

const withDb = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(makeSqliteAdapter().open(), (database) => f(database.sql))))

const reasonOf = (exit: Exit.Exit<unknown, any>): string | undefined =>
  Exit.isFailure(exit) ? (exit.cause.reasons[0] as any)?.error?.reason?._tag : undefined

describe("sqlite SqlClient", () => {
  it("commits a transaction and rolls back a failed one", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY, v BIGINT)`
        yield* sql.withTransaction(sql`INSERT INTO t VALUES (${"a"}, ${1})`)
        const failed = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO t VALUES (${"b"}, ${2})`
          return yield* Effect.fail("boom")
        })))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(yield* sql`SELECT k, v FROM t ORDER BY k`).toEqual([{ k: "a", v: 1 }])
      })
    ))

  it("nested transactions are savepoints", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY)`
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO t VALUES (${"outer"})`
          yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO t VALUES (${"inner-failed"})`
            return yield* Effect.fail("inner")
          })))
          yield* sql.withTransaction(sql`INSERT INTO t VALUES (${"inner-ok"})`)
        }))
        expect((yield* sql<{ k: string }>`SELECT k FROM t ORDER BY k`).map((row) => row.k)).toEqual(["inner-ok", "outer"])
      })
    ))

  it("classifies duplicate primary keys and UNIQUE values as UniqueViolation", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY, u TEXT UNIQUE, n INTEGER NOT NULL)`
        yield* sql`INSERT INTO t VALUES (${"a"}, ${"x"}, 1)`
        expect(reasonOf(yield* Effect.exit(sql`INSERT INTO t VALUES (${"a"}, ${"y"}, 1)`))).toBe("UniqueViolation")
        expect(reasonOf(yield* Effect.exit(sql`INSERT INTO t VALUES (${"b"}, ${"x"}, 1)`))).toBe("UniqueViolation")
        expect(reasonOf(yield* Effect.exit(sql`INSERT INTO t VALUES (${"c"}, ${"z"}, NULL)`))).toBe("ConstraintError")
        expect(reasonOf(yield* Effect.exit(sql`SELECT * FROM missing`))).toBeDefined()
      })
    ))

  it("returns integers exactly: numbers when safe, bigints beyond 2^53-1", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, v BIGINT)`
        const values = [0, -1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 32 + 7]
        for (const [i, v] of values.entries()) yield* sql`INSERT INTO t VALUES (${i}, ${v})`
        yield* sql`INSERT INTO t VALUES (${99}, ${2n ** 53n + 1n})`
        const rows = yield* sql<{ v: unknown }>`SELECT v FROM t ORDER BY id`
        expect(rows.map((row) => row.v)).toEqual([...values, 2n ** 53n + 1n])
        expect(yield* sql`SELECT ${9007199254740993n} AS v`.values).toEqual([[9007199254740993n]])
      })
    ))

  it("returns blobs as plain Uint8Array, including empty ones", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ b: unknown; e: unknown }>`SELECT ${new Uint8Array([1, 2, 255])} AS b, ${new Uint8Array(0)} AS e`
        expect(rows[0]!.b).toEqual(new Uint8Array([1, 2, 255]))
        expect(Object.getPrototypeOf(rows[0]!.b)).toBe(Uint8Array.prototype)
        expect(rows[0]!.e).toEqual(new Uint8Array(0))
      })
    ))

  it("surfaces a COMMIT that fails on a deferred foreign key and leaves no transaction open", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE p (id INTEGER PRIMARY KEY)`
        yield* sql`CREATE TABLE c (id INTEGER PRIMARY KEY, p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)`
        const exit = yield* Effect.exit(sql.withTransaction(sql`INSERT INTO c VALUES (1, 42)`))
        expect(reasonOf(exit)).toBe("ConstraintError")
        expect(yield* sql`SELECT * FROM c`).toEqual([])
        // The connection is usable again: a new transaction commits.
        yield* sql.withTransaction(sql`INSERT INTO p VALUES (42)`)
        expect(yield* sql`SELECT id FROM p`).toEqual([{ id: 42 }])
      })
    ))

  it("never interleaves two fibers' statements inside one transaction", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE log (seq INTEGER PRIMARY KEY AUTOINCREMENT, who TEXT)`
        const inside = yield* Deferred.make<void>()
        const first = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO log (who) VALUES ('a')`
          yield* Deferred.succeed(inside, undefined)
          yield* Effect.yieldNow
          yield* sql`INSERT INTO log (who) VALUES ('a')`
          return yield* Effect.fail("a rolls back")
        })))
        yield* Deferred.await(inside)
        // Must wait for the first transaction to end, and must not be rolled back with it.
        yield* sql`INSERT INTO log (who) VALUES ('b')`
        expect(Exit.isFailure(yield* Fiber.await(first))).toBe(true)
        expect((yield* sql<{ who: string }>`SELECT who FROM log`).map((row) => row.who)).toEqual(["b"])
      })
    ))

  it("keeps the statement cache bounded", () => {
    const db = new Database(":memory:")
    try {
      const cache = new StatementCache(db, 3)
      for (let i = 0; i < 10; i++) cache.get(`SELECT ${i}`)
      expect(cache.size).toBe(3)
      expect(cache.get("SELECT 9")).toBe(cache.get("SELECT 9"))
    } finally {
      db.close()
    }
  })

  it("evicts a statement not used since it was cached before one in use (second chance)", () => {
    const db = new Database(":memory:")
    try {
      const cache = new StatementCache(db, 3)
      const hot = cache.get("SELECT 1")
      cache.get("SELECT 2")
      cache.get("SELECT 3")
      expect(cache.get("SELECT 1")).toBe(hot) // a hit: SELECT 1 is now marked used
      const fourth = cache.get("SELECT 4") // evicts SELECT 2, the oldest unused entry, not SELECT 1
      expect(cache.size).toBe(3)
      expect(cache.get("SELECT 1")).toBe(hot)
      const third = cache.get("SELECT 3")
      cache.get("SELECT 5") // SELECT 3 and SELECT 1 were used since: SELECT 4 is the one evicted
      expect(cache.size).toBe(3)
      expect(cache.get("SELECT 3")).toBe(third)
      expect(cache.get("SELECT 1")).toBe(hot)
      expect(cache.get("SELECT 4")).not.toBe(fourth)
    } finally {
      db.close()
    }
  })

  it("works without the adapter, over a caller-owned database", async () => {
    const db = new Database(":memory:")
    try {
      const rows = await Effect.runPromise(Effect.flatMap(makeSqliteClient(db), (sql) => sql`SELECT 1 AS one`))
      expect(rows).toEqual([{ one: 1 }])
    } finally {
      db.close()
    }
  })
})

describe("sqlite adapter", () => {
  it("opens a fresh, empty database each time", async () => {
    const adapter = await Effect.runPromise(Effect.scoped(sqliteAdapter.make))
    const tables = (sql: SqlClient.SqlClient) =>
      sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
    await Effect.runPromise(Effect.scoped(Effect.flatMap(adapter.open(), (db) => db.sql`CREATE TABLE leftover (x)`)))
    const names = await Effect.runPromise(Effect.scoped(Effect.flatMap(adapter.open(), (db) => tables(db.sql))))
    expect(names.map((row) => row.name)).toEqual(["dc_platform_alarm"])
  })

  it("in file mode refuses an existing file and deletes its own on close", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dc-sqlite-"))
    const filename = path.join(dir, "run.db")
    try {
      const adapter = makeSqliteAdapter({ filename })
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const db = yield* adapter.open()
        yield* db.platformAlarm.set(5)
        expect(fs.existsSync(filename)).toBe(true)
        const second = yield* Effect.flip(Effect.scoped(adapter.open()))
        expect(second._tag).toBe("AdapterError")
        expect(second.hint).toMatch(/does not exist/)
      })))
      expect(fs.existsSync(filename)).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("fingerprints engine and driver versions", async () => {
    const fingerprint = await Effect.runPromise(makeSqliteAdapter().fingerprint)
    expect(fingerprint.engine).toBe("sqlite")
    expect(fingerprint.engineVersion).toMatch(/^3\.\d+\.\d+$/)
    expect(fingerprint.adapterVersion).toBe("12.11.1")
    expect(fingerprint.capabilities.independentConnections).toBe(false)
  })
})
