/**
 * `harness/MarkedTransactions.ts` reaches its points only in the labelled operation's transactions that
 * a statement marked: a marking statement outside a transaction marks the next one, one inside marks its
 * own, an unmarked transaction passes, and another operation on the same boundary is never marked.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { withBoundaryPoints } from "../../harness/BoundaryPoints.ts"
import { labelled, makeScriptedHooks } from "../../harness/HookPoints.ts"
import { type MarkOptions, markTransactions } from "../../harness/MarkedTransactions.ts"
import { makeStorageBoundary } from "../../harness/StorageBoundary.ts"

/** The points `marks` and the named points give, over a fresh sqlite boundary with tables `watched` and `quiet`. */
type MarkSpec = Omit<MarkOptions, "hooks" | "label" | "transactionService">

/**
 * The hook points reached, in order, when `op` and then `other` run `statements` (given the boundary's
 * client) over one boundary watched by `spec`.
 */
const pointsReachedBy = (spec: MarkSpec, statements: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError>): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(Effect.orDie(Effect.scoped(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    yield* database.sql`CREATE TABLE watched (n INTEGER NOT NULL)`
    yield* database.sql`CREATE TABLE quiet (n INTEGER NOT NULL)`
    const boundary = makeStorageBoundary(database.sql, database.platformAlarm)
    boundary.arm(undefined)
    const hooks = yield* makeScriptedHooks
    const marked = markTransactions({ ...spec, hooks, label: "op", transactionService: boundary.sql.transactionService })
    const run = statements(boundary.sql)
    yield* withBoundaryPoints(boundary, marked.points, Effect.andThen(labelled("op", marked.watched(run)), labelled("other", marked.watched(run))))
    return hooks.hits().map((hit) => `${hit.label}:${hit.hook}`)
  }))))

/** Statements marking by a SELECT outside a transaction and an INSERT inside one, with begin and commit points. */
const pointsReached = () =>
  pointsReachedBy({
    marks: (statement) => /\bwatched\b/.test(statement.text) && (statement.inTransaction ? /^insert/i.test(statement.text) : /^select/i.test(statement.text)),
    beforeBeginPoint: "test.begin",
    beforeCommitPoint: "test.commit"
  }, (sql) =>
    Effect.gen(function*() {
      yield* sql.withTransaction(sql`INSERT INTO quiet (n) VALUES (1)`) // unmarked: no point
      yield* sql`SELECT n FROM watched` // marks the next transaction
      yield* sql.withTransaction(sql`INSERT INTO quiet (n) VALUES (2)`) // begin and commit
      yield* sql.withTransaction(sql`INSERT INTO watched (n) VALUES (3)`) // marked inside: commit only
      yield* sql.withTransaction(sql`UPDATE watched SET n = 4`) // unmarked again
    }))

/**
 * The points reached with an after-mark point: inside one transaction the statement that follows the
 * first marking one reaches it before it runs (once per transaction); a transaction whose marking
 * statement is its last reaches only its before-commit point. `seenBefore` gets the count the statement
 * after the mark read (the mark's insert had run: the point sits between the two).
 */
const afterMarkReached = (seenBefore: Array<number>) =>
  pointsReachedBy({
    marks: (statement) => statement.inTransaction && /^insert/i.test(statement.text),
    beforeCommitPoint: "test.commit",
    afterMarkPoint: "test.afterMark"
  }, (sql) =>
    Effect.gen(function*() {
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO watched (n) VALUES (1)` // marks
        seenBefore.push((yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM watched`)[0]!.n) // after-mark point first
        yield* sql`INSERT INTO watched (n) VALUES (2)` // no second after-mark point
        yield* sql`UPDATE watched SET n = n + 10`
      }))
      yield* sql.withTransaction(sql`INSERT INTO watched (n) VALUES (3)`) // last statement: commit only
    }))

/**
 * The points reached with a before-mark point: inside each transaction, right before its first marking
 * statement (after its unmarked reads), once per transaction, and before the after-mark point.
 */
const beforeMarkReached = () =>
  pointsReachedBy({
    marks: (statement) => statement.inTransaction && /^insert/i.test(statement.text),
    beforeMarkPoint: "test.beforeMark",
    afterMarkPoint: "test.afterMark",
    beforeCommitPoint: "test.commit"
  }, (sql) =>
    Effect.gen(function*() {
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT n FROM watched` // unmarked read: no point
        yield* sql`INSERT INTO watched (n) VALUES (1)` // before-mark point first
        yield* sql`INSERT INTO watched (n) VALUES (2)` // after-mark point, no second before-mark point
      }))
      yield* sql.withTransaction(sql`UPDATE watched SET n = 4`) // unmarked: no point
      yield* sql.withTransaction(sql`INSERT INTO watched (n) VALUES (3)`) // a new transaction: before-mark again
    }))

describe("markTransactions", () => {
  it("reaches its points only in the labelled operation's marked transactions", async () => {
    expect(await pointsReached()).toEqual(["op:test.begin", "op:test.commit", "op:test.commit"])
  })

  it("reaches the after-mark point before the statement after a transaction's first marking one, once", async () => {
    const seenBefore: Array<number> = []
    expect(await afterMarkReached(seenBefore)).toEqual(["op:test.afterMark", "op:test.commit", "op:test.commit"])
    expect(seenBefore).toEqual([1, 4])
  })

  it("reaches the before-mark point right before each transaction's first marking statement, once per transaction", async () => {
    expect(await beforeMarkReached()).toEqual(["op:test.beforeMark", "op:test.afterMark", "op:test.commit", "op:test.beforeMark", "op:test.commit"])
  })
})
