/**
 * `harness/StatementWatch.ts` tells a race every statement an operation runs, with its text and whether
 * it runs inside a transaction, without the implementation's help; statements outside the watched
 * operation are not seen.
 */
import BetterSqlite3 from "better-sqlite3"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteClient } from "../../adapters/sqlite/index.ts"
import { type SeenStatement, watchStatements } from "../../harness/StatementWatch.ts"

describe("watchStatements", () => {
  it("sees each statement of the watched operation, inside or outside a transaction, and no other", async () => {
    const seen: Array<SeenStatement> = []
    await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* makeSqliteClient(new BetterSqlite3(":memory:"))
      yield* sql`CREATE TABLE t (x INTEGER)`
      yield* watchStatements(
        Effect.andThen(sql`SELECT x FROM t`, sql.withTransaction(sql`INSERT INTO t (x) VALUES (${1})`)),
        sql.transactionService,
        (statement) => seen.push(statement)
      )
      yield* sql`DELETE FROM t`
    }))
    expect(seen).toEqual([
      { text: "SELECT x FROM t", inTransaction: false },
      { text: "INSERT INTO t (x) VALUES (?)", inTransaction: true }
    ])
  })
})
