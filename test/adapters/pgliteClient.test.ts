/**
 * Unit tests of the PGlite `SqlClient` and the `pglite` adapter: transactions and savepoints, the
 * aborted-COMMIT case, error classification, int8 handling, serialization on the single session,
 * schema-per-run isolation and its cost. One PGlite instance for the whole file (creating one costs
 * seconds).
 */
import { PGlite } from "@electric-sql/pglite"
import { Deferred, Effect, Exit, Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { makePgliteAdapterFromSession, makePgliteSession } from "../../adapters/pglite/index.ts"

let pg: PGlite
let adapter: StorageAdapter

beforeAll(async () => {
  pg = await PGlite.create()
  adapter = makePgliteAdapterFromSession(makePgliteSession(pg))
})
afterAll(async () => {
  await pg.close()
})

const withDb = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(adapter.open(), (database) => f(database.sql))))

const reasonOf = (exit: Exit.Exit<unknown, any>): string | undefined =>
  Exit.isFailure(exit) ? (exit.cause.reasons[0] as any)?.error?.reason?._tag : undefined

describe("pglite SqlClient", () => {
  it("commits, rolls back, and nests with savepoints", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY)`
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO t VALUES (${"outer"})`
          const inner = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO t VALUES (${"inner"})`
            yield* sql`INSERT INTO t VALUES (${"inner"})` // duplicate: aborts only the savepoint
          })))
          expect(reasonOf(inner)).toBe("UniqueViolation")
        }))
        const failed = yield* Effect.exit(sql.withTransaction(Effect.andThen(sql`INSERT INTO t VALUES (${"lost"})`, Effect.die("defect"))))
        expect(Exit.isFailure(failed)).toBe(true)
        expect((yield* sql<{ k: string }>`SELECT k FROM t ORDER BY k`).map((row) => row.k)).toEqual(["outer"])
      })
    ))

  it("fails a transaction whose COMMIT Postgres turned into a ROLLBACK", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY)`
        yield* sql`INSERT INTO t VALUES (${"a"})`
        const exit = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO t VALUES (${"b"})`
          yield* Effect.exit(sql`INSERT INTO t VALUES (${"a"})`) // caught: the transaction is aborted
        })))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(String(Exit.isFailure(exit) ? exit.cause.reasons[0] : "")).toMatch(/COMMIT rolled back/)
        expect(yield* sql`SELECT k FROM t`).toEqual([{ k: "a" }])
      })
    ))

  it("classifies SQLSTATEs: unique, other constraints, syntax", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY, n INT NOT NULL)`
        yield* sql`INSERT INTO t VALUES (${"a"}, 1)`
        expect(reasonOf(yield* Effect.exit(sql`INSERT INTO t VALUES (${"a"}, 1)`))).toBe("UniqueViolation")
        expect(reasonOf(yield* Effect.exit(sql`INSERT INTO t VALUES (${"b"}, NULL)`))).toBe("ConstraintError")
        expect(reasonOf(yield* Effect.exit(sql`SELEC 1`))).toBe("SqlSyntaxError")
      })
    ))

  it("returns int8 as exact numbers up to 2^53-1 and bigints beyond", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id INT PRIMARY KEY, v BIGINT)`
        const values = [0, -1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 32 + 7]
        for (const [i, v] of values.entries()) yield* sql`INSERT INTO t VALUES (${i}, ${v})`
        yield* sql`INSERT INTO t VALUES (${99}, ${2n ** 53n + 1n})`
        const rows = yield* sql<{ v: unknown }>`SELECT v FROM t ORDER BY id`
        expect(rows.map((row) => row.v)).toEqual([...values, 2n ** 53n + 1n])
      })
    ))

  it("serializes transactions from concurrent fibers on the one session", () =>
    withDb((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE log (seq SERIAL PRIMARY KEY, who TEXT)`
        const inside = yield* Deferred.make<void>()
        const first = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO log (who) VALUES ('a')`
          yield* Deferred.succeed(inside, undefined)
          yield* Effect.yieldNow
          return yield* Effect.fail("a rolls back")
        })))
        yield* Deferred.await(inside)
        yield* sql`INSERT INTO log (who) VALUES ('b')`
        expect(Exit.isFailure(yield* Fiber.await(first))).toBe(true)
        expect((yield* sql<{ who: string }>`SELECT who FROM log`).map((row) => row.who)).toEqual(["b"])
      })
    ))
})

describe("pglite adapter", () => {
  it("isolates concurrently open databases by schema", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const one = yield* adapter.open()
      const two = yield* adapter.open()
      yield* one.sql`CREATE TABLE t (v TEXT)`
      yield* two.sql`CREATE TABLE t (v TEXT)`
      yield* one.sql`INSERT INTO t VALUES ('one')`
      yield* two.sql`INSERT INTO t VALUES ('two')`
      yield* one.platformAlarm.set(1)
      expect(yield* one.sql`SELECT v FROM t`).toEqual([{ v: "one" }])
      expect(yield* two.sql`SELECT v FROM t`).toEqual([{ v: "two" }])
      expect(yield* two.platformAlarm.get).toBe(null)
    })))
    const left = await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname LIKE 'dc_run_%'")
    expect(left.rows[0]!.n).toBe(0)
  })

  // The cost of a fresh database (milliseconds: a schema, not a new PGlite instance) is measured by
  // `npm run bench`, not asserted in a timed test.

  it("fingerprints the Postgres and PGlite versions", async () => {
    const fingerprint = await Effect.runPromise(adapter.fingerprint)
    expect(fingerprint.engineVersion).toMatch(/^\d+\.\d+/)
    expect(fingerprint.adapterVersion).toBe("0.5.17")
    expect(fingerprint.dialect).toBe("postgres")
  })
})
