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

/**
 * The points reached with an after-mark point: inside one transaction the statement that follows the
 * first marking one reaches it before it runs (once per transaction); a transaction whose marking
 * statement is its last reaches only its before-commit point.
 */
const afterMarkReached = (): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(Effect.orDie(Effect.scoped(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    yield* database.sql`CREATE TABLE watched (n INTEGER NOT NULL)`
    const boundary = makeStorageBoundary(database.sql, database.platformAlarm)
    boundary.arm(undefined)
    const sql = boundary.sql
    const hooks = yield* makeScriptedHooks
    const marked = markTransactions({
      hooks,
      label: "op",
      transactionService: sql.transactionService,
      marks: (statement) => statement.inTransaction && /^insert/i.test(statement.text),
      beforeCommitPoint: "test.commit",
      afterMarkPoint: "test.afterMark"
    })
    const seenBefore: Array<number> = []
    const statements = Effect.gen(function*() {
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO watched (n) VALUES (1)` // marks
        seenBefore.push((yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM watched`)[0]!.n) // after-mark point first
        yield* sql`INSERT INTO watched (n) VALUES (2)` // no second after-mark point
        yield* sql`UPDATE watched SET n = n + 10`
      }))
      yield* sql.withTransaction(sql`INSERT INTO watched (n) VALUES (3)`) // last statement: commit only
    })
    yield* withBoundaryPoints(boundary, marked.points, Effect.andThen(labelled("op", marked.watched(statements)), labelled("other", marked.watched(statements))))
    expect(seenBefore).toEqual([1, 4])
    return hooks.hits().map((hit) => `${hit.label}:${hit.hook}`)
  }))))

describe("markTransactions", () => {
  it("reaches its points only in the labelled operation's marked transactions", async () => {
    expect(await pointsReached()).toEqual(["op:test.begin", "op:test.commit", "op:test.commit"])
  })

  it("reaches the after-mark point before the statement after a transaction's first marking one, once", async () => {
    expect(await afterMarkReached()).toEqual(["op:test.afterMark", "op:test.commit", "op:test.commit"])
  })
})
