/**
 * `harness/MarkedTransactions.ts` reaches its points only in the labelled operation's transactions that
 * a statement marked: a marking statement outside a transaction marks the next one, one inside marks its
 * own, an unmarked transaction passes, and another operation on the same boundary is never marked.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { withBoundaryPoints } from "../../harness/BoundaryPoints.ts"
import { labelled, makeScriptedHooks } from "../../harness/HookPoints.ts"
import { markTransactions } from "../../harness/MarkedTransactions.ts"
import { makeStorageBoundary } from "../../harness/StorageBoundary.ts"

/** The hook points reached, in order, when `op` and then `other` run the same statements over one boundary. */
const pointsReached = (): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(Effect.orDie(Effect.scoped(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    yield* database.sql`CREATE TABLE watched (n INTEGER NOT NULL)`
    yield* database.sql`CREATE TABLE quiet (n INTEGER NOT NULL)`
    const boundary = makeStorageBoundary(database.sql, database.platformAlarm)
    boundary.arm(undefined)
    const sql = boundary.sql
    const hooks = yield* makeScriptedHooks
    const marked = markTransactions({
      hooks,
      label: "op",
      transactionService: sql.transactionService,
      marks: (statement) => /\bwatched\b/.test(statement.text) && (statement.inTransaction ? /^insert/i.test(statement.text) : /^select/i.test(statement.text)),
      beforeBeginPoint: "test.begin",
      beforeCommitPoint: "test.commit"
    })
    const statements = Effect.gen(function*() {
      yield* sql.withTransaction(sql`INSERT INTO quiet (n) VALUES (1)`) // unmarked: no point
      yield* sql`SELECT n FROM watched` // marks the next transaction
      yield* sql.withTransaction(sql`INSERT INTO quiet (n) VALUES (2)`) // begin and commit
      yield* sql.withTransaction(sql`INSERT INTO watched (n) VALUES (3)`) // marked inside: commit only
      yield* sql.withTransaction(sql`UPDATE watched SET n = 4`) // unmarked again
    })
    yield* withBoundaryPoints(boundary, marked.points, Effect.andThen(labelled("op", marked.watched(statements)), labelled("other", marked.watched(statements))))
    return hooks.hits().map((hit) => `${hit.label}:${hit.hook}`)
  }))))

describe("markTransactions", () => {
  it("reaches its points only in the labelled operation's marked transactions", async () => {
    expect(await pointsReached()).toEqual(["op:test.begin", "op:test.commit", "op:test.commit"])
  })
})
