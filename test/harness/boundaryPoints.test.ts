/**
 * The storage boundary's own scheduling points (`harness/BoundaryPoints.ts`, `StorageBoundary.setTransactionPoints`):
 * an operation pauses before a transaction begins and before it commits, even when it silences hook
 * points, and the points change neither the fault ordinals nor what commits.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { AFTER_BEGIN_POINT, BEFORE_COMMIT_POINT, everyOperationsOpenTransaction, holdingBeforeCommit, pointOf, withBoundaryPoints } from "../../harness/BoundaryPoints.ts"
import { lastPointOf, makeScriptedHooks, type ScriptedHooks } from "../../harness/HookPoints.ts"
import { finish, releaseTo, startPaused } from "../../harness/PausedOperations.ts"
import { makeStorageBoundary, type TransactionPoints } from "../../harness/StorageBoundary.ts"
import { withoutHookPoints } from "../support/withoutHookPoints.ts"

const BEFORE_BEGIN = "test.beforeBegin"

/** A fresh sqlite database, a boundary over it, and a table of one counter. */
const withBoundary = <A>(body: (boundary: ReturnType<typeof makeStorageBoundary>) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    yield* database.sql`CREATE TABLE counter (n INTEGER NOT NULL)`
    yield* database.sql`INSERT INTO counter (n) VALUES (0)`
    const boundary = makeStorageBoundary(database.sql, database.platformAlarm)
    boundary.arm(undefined)
    return yield* body(boundary)
  })) as Effect.Effect<A, never>)

/**
 * Runs `operation` without hook points as "op" under `points`, paused first at `first`, then released
 * to `BEFORE_COMMIT_POINT` `commits` times, then to its end: the point and transaction counts at each.
 */
const walkPoints = (boundary: ReturnType<typeof makeStorageBoundary>, hooks: ScriptedHooks, points: TransactionPoints, operation: Effect.Effect<unknown, unknown>, first: string, commits: number) =>
  withBoundaryPoints(boundary, points, Effect.gen(function*() {
    const notes: Array<string> = []
    const note = () => notes.push(`${lastPointOf(hooks, "op")} started=${boundary.transactionsStarted()} committed=${boundary.transactionsCommitted()}`)
    let op = yield* startPaused(hooks, "op", first, withoutHookPoints(operation))
    note()
    for (let commit = 0; commit < commits; commit++) {
      op = yield* releaseTo(hooks, op, BEFORE_COMMIT_POINT)
      note()
    }
    yield* finish(hooks, op)
    note()
    return notes
  }))

describe("the storage boundary's scheduling points", () => {
  it("pause an operation without hook points before each transaction begins and before it commits", async () => {
    const seen = await withBoundary((boundary) => Effect.gen(function*() {
      const hooks = yield* makeScriptedHooks
      const increment = boundary.sql.withTransaction(boundary.sql`UPDATE counter SET n = n + 1`)
      const points = { beforeBegin: pointOf(hooks, "op", BEFORE_BEGIN), beforeCommit: holdingBeforeCommit(hooks, "op").beforeCommit! }
      return yield* walkPoints(boundary, hooks, points, Effect.andThen(increment, increment), BEFORE_BEGIN, 2)
    }))
    expect(seen).toEqual([
      "test.beforeBegin started=0 committed=0",
      "storage.beforeCommit started=1 committed=0",
      "storage.beforeCommit started=2 committed=1",
      "storage.beforeCommit started=2 committed=2"
    ])
  })

  it("pause an operation without hook points right after BEGIN, its transaction counted and open", async () => {
    const seen = await withBoundary((boundary) => Effect.gen(function*() {
      const hooks = yield* makeScriptedHooks
      const increment = boundary.sql.withTransaction(boundary.sql`UPDATE counter SET n = n + 1`)
      return yield* walkPoints(boundary, hooks, everyOperationsOpenTransaction(hooks), increment, AFTER_BEGIN_POINT, 1)
    }))
    expect(seen).toEqual([
      "storage.afterBegin started=1 committed=0",
      "storage.beforeCommit started=1 committed=0",
      "storage.beforeCommit started=1 committed=1"
    ])
  })

  it("are cleared after the race, and other operations pass them without pausing", async () => {
    const counted = await withBoundary((boundary) => Effect.gen(function*() {
      const hooks = yield* makeScriptedHooks
      const increment = boundary.sql.withTransaction(boundary.sql`UPDATE counter SET n = n + 1`)
      yield* withBoundaryPoints(boundary, holdingBeforeCommit(hooks, "op"), Effect.andThen(increment, increment))
      yield* increment
      const rows = yield* boundary.sql<{ readonly n: number }>`SELECT n FROM counter`
      return { n: Number(rows[0]!.n), hits: hooks.hits().length }
    }))
    expect(counted).toEqual({ n: 3, hits: 0 })
  })
})
