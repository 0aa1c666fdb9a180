/**
 * `harness/PostgresLocks.runIntoHeld` always ends an overlap cleanly: the held one is released and the
 * waiter awaited even when the server cannot be polled (here an observer that has no
 * `pg_blocking_pids`: a SQLite database), and the poll's failure is then either the run's failure or,
 * when asked, "not seen waiting". On a Postgres server, a waiter that runs into the held row lock is
 * seen waiting, and one that does not is reported as ended before the release.
 */
import { Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { backendPidOf, runIntoHeld } from "../../harness/PostgresLocks.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

/** Runs `runIntoHeld` over a SQLite observer; the waiter waits for the release unless `waiterWaits` is false. */
const overlapOnSqlite = (options: { readonly pollFailureAsNotBlocked?: boolean; readonly waiterWaits: boolean }) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* Effect.orDie(makeSqliteAdapter().open())
    const released = yield* Deferred.make<void>()
    const waiter = options.waiterWaits ? Effect.as(Deferred.await(released), "waited") : Effect.succeed("ran alone")
    const release = Effect.as(Deferred.succeed(released, undefined), "held one released")
    const run = yield* Effect.exit(runIntoHeld(database.sql, { waiter: 1, holder: 2 }, waiter, release, options))
    return { run, releasedAfterwards: yield* Deferred.isDone(released) }
  })))

/**
 * On three connections of one Postgres database: connection 0 holds row 1 locked in an open
 * transaction; connection 1 updates row `row` while it is held (the waiter); connection 2 observes.
 */
const overlapOnPostgres = (adapter: StorageAdapter, row: number) =>
  Effect.runPromise(Effect.scoped(Effect.orDie(Effect.gen(function*() {
    const database = yield* adapter.open({ connections: 3 })
    const [holder, waiter, observer] = [database.connections[0]!, database.connections[1]!, database.connections[2]!]
    yield* holder`CREATE TABLE held_rows (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`
    yield* holder`INSERT INTO held_rows (id, n) VALUES (1, 0), (2, 0)`
    // Each connection is one session: the holder's pid is read before its transaction takes it.
    const pids = { holder: yield* backendPidOf(holder), waiter: yield* backendPidOf(waiter) }
    const locked = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const holding = yield* Effect.forkChild(holder.withTransaction(Effect.gen(function*() {
      yield* holder`SELECT n FROM held_rows WHERE id = 1 FOR UPDATE`
      yield* Deferred.succeed(locked, undefined)
      yield* Deferred.await(release)
    })))
    yield* Deferred.await(locked)
    const update = Effect.map(waiter`UPDATE held_rows SET n = n + 1 WHERE id = ${row}`.raw, () => 1)
    const commit = Effect.as(Effect.andThen(Deferred.succeed(release, undefined), Fiber.await(holding)), "committed")
    return yield* runIntoHeld(observer, pids, update, commit)
  }))))

const postgres = usePostgresAdapter()

describe("runIntoHeld", () => {
  it("releases the held one and awaits the waiter when the poll fails, then fails with the poll's error", async () => {
    const { run, releasedAfterwards } = await overlapOnSqlite({ waiterWaits: true })
    expect(releasedAfterwards).toBe(true)
    expect(Exit.isFailure(run)).toBe(true)
    expect(String(Exit.isFailure(run) ? run.cause : "")).toMatch(/pg_blocking_pids/)
  })

  it("reads a failing poll as not seen waiting when asked, with both ends reported", async () => {
    const { run } = await overlapOnSqlite({ waiterWaits: true, pollFailureAsNotBlocked: true })
    if (!Exit.isSuccess(run)) throw new Error(`expected success, got ${String(run.cause)}`)
    expect(run.value.blocked).toBe(false)
    expect(run.value.endedBeforeRelease).toBe(false)
    expect(run.value.released).toBe("held one released")
    expect(run.value.waiterExit).toEqual(Exit.succeed("waited"))
  })

  it("sees a waiter run into the held row lock on a Postgres server, and one on another row end before the release", async () => {
    const onRow = (row: number) => overlapOnPostgres(postgres(), row)
    const intoLock = await onRow(1)
    expect(intoLock).toEqual({ blocked: true, endedBeforeRelease: false, waiterExit: Exit.succeed(1), released: "committed" })
    const beside = await onRow(2)
    expect(beside).toEqual({ blocked: false, endedBeforeRelease: true, waiterExit: Exit.succeed(1), released: "committed" })
  })
})
