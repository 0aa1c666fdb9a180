/** `inRolledBackTransaction`: the body's value comes out, its writes do not stay, its error stands. */
import BetterSqlite3 from "better-sqlite3"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteClient } from "../../adapters/sqlite/index.ts"
import { inRolledBackTransaction } from "../../harness/RolledBackTransaction.ts"

describe("inRolledBackTransaction", () => {
  it("returns what the body read of its own writes, and keeps none of them", async () => {
    const result = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* makeSqliteClient(new BetterSqlite3(":memory:"))
      yield* sql`CREATE TABLE t (x INTEGER)`
      const inside = yield* inRolledBackTransaction(sql, Effect.andThen(sql`INSERT INTO t (x) VALUES (${1})`, sql<{ readonly x: number }>`SELECT x FROM t`))
      const after = yield* sql<{ readonly x: number }>`SELECT x FROM t`
      return { inside, after }
    }))
    expect(result).toEqual({ inside: [{ x: 1 }], after: [] })
  })

  it("fails with the body's own error, and keeps nothing it wrote before", async () => {
    const result = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* makeSqliteClient(new BetterSqlite3(":memory:"))
      yield* sql`CREATE TABLE t (x INTEGER NOT NULL)`
      const failed = yield* Effect.flip(inRolledBackTransaction(sql, Effect.andThen(sql`INSERT INTO t (x) VALUES (${1})`, sql`INSERT INTO t (x) VALUES (NULL)`)))
      const after = yield* sql`SELECT x FROM t`
      return { tag: failed._tag, after }
    }))
    expect(result).toEqual({ tag: "SqlError", after: [] })
  })
})
