/**
 * The storage boundary on every in-process adapter: it counts outermost transactions only, and its
 * faults act at transaction boundaries with no help from the code under test. A crash ends the whole
 * operation from outside: code after the crash point does not run even when it catches every error
 * and defect, a transaction crashed inside rolls back, one crashed after commit stays. A lost reply
 * commits but fails the caller; a failing platform alarm write fails only in its transaction; a refused
 * commit runs its body, rolls back and fails the caller, who goes on; a failed statement aborts its
 * transaction as Postgres does on the Postgres backends, and undoes itself alone, its transaction going
 * on, as SQLite does on the SQLite backend. A write outside any transaction is a transaction of one statement, and
 * meets every fault as one. Only
 * work run uninterruptibly goes on past a crash, and its writes land (the model then sees them).
 */
import { Cause, Effect, Exit, Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import { isSqlError } from "effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import type { StorageFault } from "../../harness/Faults.ts"
import { type BoundaryOptions, type BoundedOutcome, makeStorageBoundary, type StorageBoundary } from "../../harness/StorageBoundary.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()

interface Harness {
  readonly boundary: StorageBoundary
  /** Rows of table `t`, in order. */
  readonly rows: Effect.Effect<ReadonlyArray<number>, unknown>
  /** Inserts `value` through the boundary's client. */
  readonly insert: (value: number) => Effect.Effect<void, unknown>
  /** Runs `operation` under the boundary with `fault` armed. */
  readonly run: <A, E>(fault: StorageFault | undefined, operation: Effect.Effect<A, E>) => Effect.Effect<BoundedOutcome<A, E>>
}

const withHarness = <A>(adapter: StorageAdapter, body: (h: Harness) => Effect.Effect<A, unknown>, options?: BoundaryOptions): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* adapter.open()
    const raw: SqlClient.SqlClient = database.sql
    yield* raw.unsafe("CREATE TABLE t (v INTEGER NOT NULL)")
    const boundary = makeStorageBoundary(raw, database.platformAlarm, options)
    const harness: Harness = {
      boundary,
      rows: Effect.map(raw.unsafe<{ readonly v: unknown }>("SELECT v FROM t ORDER BY v"), (rows) => rows.map((row) => Number(row.v))),
      insert: (value) => Effect.asVoid(boundary.sql`INSERT INTO t (v) VALUES (${value})`),
      run: (fault, operation) =>
        Effect.suspend(() => {
          boundary.arm(fault)
          return boundary.run(operation)
        })
    }
    return yield* body(harness)
  })))

/** What a failed statement does to its transaction on each adapter's backend. */
const MEANING: Record<string, "abortsTransaction" | "statementOnly"> = { sqlite: "statementOnly", pglite: "abortsTransaction", postgres: "abortsTransaction" }

const crashed = <A, E>(outcome: BoundedOutcome<A, E>) => (outcome._tag === "Crashed" ? outcome.crash : null)

describe.each(NODE_ADAPTER_NAMES)("storage boundary on %s", (name) => {
  it("counts outermost transactions and writes outside any transaction; a nested call is a savepoint of the open one", async () => {
    const counts = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        yield* h.run(undefined, Effect.gen(function*() {
          yield* h.boundary.sql.withTransaction(Effect.gen(function*() {
            yield* h.insert(1)
            yield* h.boundary.sql.withTransaction(h.insert(2))
          }))
          yield* h.boundary.sql.withTransaction(h.insert(3))
          yield* h.insert(4) // outside any transaction: a transaction of one statement
          yield* h.boundary.sql`SELECT v FROM t` // a read outside one: not counted
        }))
        return { started: h.boundary.transactionsStarted(), committed: h.boundary.transactionsCommitted(), rows: yield* h.rows }
      }))
    expect(counts).toEqual({ started: 3, committed: 3, rows: [1, 2, 3, 4] })
  })

  it("a crash inside the n-th transaction rolls it back and nothing after the crash point runs, whatever the code catches", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const after: Array<string> = []
        // Code that catches every error and defect around each transaction, as upstream's handler wrapper does.
        const caught = (effect: Effect.Effect<void, unknown>, label: string) =>
          Effect.exit(effect).pipe(Effect.tap(() => Effect.sync(() => after.push(label))))
        const outcome = yield* h.run({ transaction: 2, phase: "inside" }, Effect.gen(function*() {
          yield* caught(h.boundary.sql.withTransaction(h.insert(1)), "first")
          yield* caught(h.boundary.sql.withTransaction(Effect.andThen(h.insert(2), h.insert(3))), "second")
          yield* Effect.catchCause(h.insert(4), () => Effect.void)
          after.push("end")
        }))
        return { crash: crashed(outcome), after, rows: yield* h.rows }
      }))
    expect(result.crash).toEqual({ transaction: 2, phase: "inside" })
    expect(result.after).toEqual(["first"])
    expect(result.rows).toEqual([1])
  })

  it("a crash inside a transaction whose body fails still crashes (the body's failure is never seen)", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const outcome = yield* h.run(
          { transaction: 1, phase: "inside" },
          Effect.exit(h.boundary.sql.withTransaction(Effect.andThen(h.insert(1), Effect.fail("closure failed"))))
        )
        return { crash: crashed(outcome), rows: yield* h.rows }
      }))
    expect(result).toEqual({ crash: { transaction: 1, phase: "inside" }, rows: [] })
  })

  it("a crash after the n-th commit keeps that transaction and stops the operation there", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const outcome = yield* h.run({ transaction: 1, phase: "afterCommit" }, Effect.gen(function*() {
          yield* Effect.exit(h.boundary.sql.withTransaction(h.insert(1)))
          yield* h.insert(2)
        }))
        return { crash: crashed(outcome), committed: h.boundary.transactionsCommitted(), rows: yield* h.rows }
      }))
    expect(result).toEqual({ crash: { transaction: 1, phase: "afterCommit" }, committed: 1, rows: [1] })
  })

  it("a lost reply commits and then fails the caller with a storage error it can handle", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const outcome = yield* h.run({ transaction: 1, phase: "lostReply" }, Effect.gen(function*() {
          const exit = yield* Effect.exit(h.boundary.sql.withTransaction(h.insert(1)))
          yield* h.boundary.sql.withTransaction(h.insert(2))
          return Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : "no failure"
        }))
        return { outcome, rows: yield* h.rows }
      }))
    expect(result.outcome._tag).toBe("Completed")
    const value = result.outcome._tag === "Completed" && Exit.isSuccess(result.outcome.exit) ? result.outcome.exit.value : ""
    expect(value).toMatch(/SqlError/)
    expect(result.rows).toEqual([1, 2])
  })

  it("a failing platform alarm write fails only in the faulted transaction", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const writeAlarm = (epochMs: number) => h.boundary.sql.withTransaction(h.boundary.platformAlarm.set(epochMs))
        const outcome = yield* h.run({ transaction: 2, phase: "setAlarmFails" }, Effect.gen(function*() {
          const first = yield* Effect.exit(writeAlarm(1_000))
          const second = yield* Effect.exit(writeAlarm(2_000))
          const third = yield* Effect.exit(writeAlarm(3_000))
          return [first, second, third].map(Exit.isSuccess)
        }))
        return { outcome, alarm: yield* h.boundary.platformAlarm.get }
      }))
    expect(result.outcome._tag === "Completed" && Exit.isSuccess(result.outcome.exit) && result.outcome.exit.value).toEqual([true, false, true])
    expect(result.alarm).toBe(3_000)
  })

  it("a refused commit runs the body to its end, rolls it back, fails the caller with a retryable serialization SqlError, and the operation goes on", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const ran: Array<string> = []
        const outcome = yield* h.run({ transaction: 2, phase: "commitRefused" }, Effect.gen(function*() {
          yield* h.boundary.sql.withTransaction(Effect.andThen(h.insert(1), h.boundary.platformAlarm.set(1_000)))
          const refused = yield* Effect.exit(h.boundary.sql.withTransaction(Effect.gen(function*() {
            yield* h.insert(2)
            yield* h.boundary.sql.withTransaction(h.insert(3)) // a savepoint: not a transaction of its own
            yield* h.boundary.platformAlarm.set(2_000)
            ran.push("body ended")
          })))
          yield* h.boundary.sql.withTransaction(h.insert(4))
          ran.push("went on")
          return Exit.isFailure(refused) ? Cause.squash(refused.cause) : "committed"
        }))
        return {
          outcome,
          ran,
          started: h.boundary.transactionsStarted(),
          committed: h.boundary.transactionsCommitted(),
          rows: yield* h.rows,
          alarm: yield* h.boundary.platformAlarm.get
        }
      }))
    expect(result.outcome._tag).toBe("Completed")
    const error = result.outcome._tag === "Completed" && Exit.isSuccess(result.outcome.exit) ? result.outcome.exit.value : null
    expect(isSqlError(error)).toBe(true)
    expect(isSqlError(error) && error.reason._tag).toBe("SerializationError")
    expect(isSqlError(error) && error.isRetryable).toBe(true)
    expect(result.ran).toEqual(["body ended", "went on"])
    expect({ started: result.started, committed: result.committed, rows: result.rows, alarm: result.alarm }).toEqual({
      started: 3,
      committed: 2,
      rows: [1, 4],
      alarm: 1_000
    })
  })

  it("a transaction whose body fails is not refused: the body's own error reaches the caller", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const outcome = yield* h.run(
          { transaction: 1, phase: "commitRefused" },
          Effect.flip(h.boundary.sql.withTransaction(Effect.andThen(h.insert(1), Effect.fail("closure failed" as const))))
        )
        return { outcome, rows: yield* h.rows }
      }))
    expect(result.outcome._tag === "Completed" && Exit.isSuccess(result.outcome.exit) && result.outcome.exit.value).toBe("closure failed")
    expect(result.rows).toEqual([])
  })

  it("a failed statement reaches the code, which goes on; it rolls back when the error propagates, the caller goes on (Postgres: later statements fail; SQLite: they run)", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const seen: Array<string> = []
        const outcome = yield* h.run({ transaction: 2, phase: "statementFails", statement: 2 }, Effect.gen(function*() {
          yield* h.boundary.sql.withTransaction(h.insert(1))
          const failed = yield* Effect.exit(h.boundary.sql.withTransaction(Effect.gen(function*() {
            yield* h.insert(2)
            yield* h.boundary.sql.withTransaction(h.insert(3)) // a savepoint's statement is not counted
            const second = yield* Effect.exit(h.insert(4))
            seen.push(Exit.isFailure(second) && isSqlError(Cause.squash(second.cause)) ? (Cause.squash(second.cause) as { reason: { _tag: string } }).reason._tag : "ran")
            const third = yield* Effect.exit(h.insert(5))
            seen.push(Exit.isFailure(third) ? "aborted" : "ran")
            return yield* second
          })))
          yield* h.boundary.sql.withTransaction(h.insert(6))
          return Exit.isFailure(failed) ? Cause.squash(failed.cause) : "committed"
        }))
        return { outcome, seen, struck: h.boundary.statementFaultOutcome(), committed: h.boundary.transactionsCommitted(), rows: yield* h.rows }
      }))
    const error = result.outcome._tag === "Completed" && Exit.isSuccess(result.outcome.exit) ? result.outcome.exit.value : null
    const failedWith = MEANING[name] === "statementOnly" ? "UnknownError" : "DeadlockError"
    expect(isSqlError(error) && error.reason._tag).toBe(failedWith)
    expect(result.seen).toEqual([failedWith, MEANING[name] === "statementOnly" ? "ran" : "aborted"])
    expect({ struck: result.struck, committed: result.committed, rows: result.rows }).toEqual({ struck: "statementFailed", committed: 2, rows: [1, 6] })
  })

  it("a failed statement the code swallows: Postgres rolls the transaction back and tells the caller it committed; SQLite commits the rest", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const outcome = yield* h.run(
          { transaction: 1, phase: "statementFails", statement: 1 },
          h.boundary.sql.withTransaction(Effect.gen(function*() {
            yield* Effect.exit(h.insert(1))
            yield* Effect.exit(h.insert(2))
            return "swallowed"
          }))
        )
        return { outcome, struck: h.boundary.statementFaultOutcome(), committed: h.boundary.transactionsCommitted(), rows: yield* h.rows }
      }))
    expect(result.outcome._tag === "Completed" && Exit.isSuccess(result.outcome.exit) && result.outcome.exit.value).toBe("swallowed")
    expect({ struck: result.struck, committed: result.committed, rows: result.rows }).toEqual(
      MEANING[name] === "statementOnly"
        ? { struck: "statementFailedThenCommitted", committed: 1, rows: [2] }
        : { struck: "statementFailed", committed: 0, rows: [] }
    )
  })

  it("a transaction that runs fewer statements than the fault names is refused at COMMIT; one whose body fails first keeps its own error", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const short = yield* h.run({ transaction: 1, phase: "statementFails", statement: 3 }, Effect.flip(h.boundary.sql.withTransaction(h.insert(1))))
        const shortOutcome = h.boundary.statementFaultOutcome()
        const own = yield* h.run(
          { transaction: 1, phase: "statementFails", statement: 2 },
          Effect.flip(h.boundary.sql.withTransaction(Effect.andThen(h.insert(2), Effect.fail("closure failed" as const))))
        )
        const ownOutcome = h.boundary.statementFaultOutcome()
        return { short, shortOutcome, own, ownOutcome, rows: yield* h.rows }
      }))
    const refused = result.short._tag === "Completed" && Exit.isSuccess(result.short.exit) ? result.short.exit.value : null
    expect(isSqlError(refused) && refused.reason._tag).toBe("SerializationError")
    expect(result.own._tag === "Completed" && Exit.isSuccess(result.own.exit) && result.own.exit.value).toBe("closure failed")
    expect({ shortOutcome: result.shortOutcome, ownOutcome: result.ownOutcome, rows: result.rows })
      .toEqual({ shortOutcome: "commitRefusedInstead", ownOutcome: "bodyFailedFirst", rows: [] })
  })

  it("a failed read fails the n-th read outside any transaction before it runs; reads inside one and writes are not counted", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const read = h.boundary.sql<{ readonly v: unknown }>`SELECT v FROM t ORDER BY v`
        const outcome = yield* h.run({ transaction: 1, phase: "readFails", statement: 2 }, Effect.gen(function*() {
          yield* h.insert(1) // a write outside a transaction: not a read
          const first = yield* Effect.exit(read)
          const inside = yield* Effect.exit(h.boundary.sql.withTransaction(read)) // a read inside one: not counted
          const second = yield* Effect.exit(read)
          const third = yield* Effect.exit(read)
          return { first, inside, second, third }
        }))
        const afterFailing = h.boundary.readsOutside()
        yield* h.run({ transaction: 1, phase: "readFails", statement: 2 }, Effect.exit(read))
        return { outcome, afterFailing, unreached: h.boundary.readsOutside(), rows: yield* h.rows }
      }))
    const exits = result.outcome._tag === "Completed" && Exit.isSuccess(result.outcome.exit) ? result.outcome.exit.value : null
    expect(exits !== null && Exit.isSuccess(exits.first) && Exit.isSuccess(exits.inside) && Exit.isSuccess(exits.third)).toBe(true)
    const failure = exits !== null && Exit.isFailure(exits.second) ? Cause.squash(exits.second.cause) : null
    expect(isSqlError(failure) && failure.reason._tag).toBe("ConnectionError")
    expect({ afterFailing: result.afterFailing, unreached: result.unreached, rows: result.rows })
      .toEqual({ afterFailing: { started: 3, failed: true }, unreached: { started: 1, failed: false }, rows: [1] })
  })

  it("interrupts a detached fiber that reached the crash point, so the database is free for the rebuilt service", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const outcome = yield* h.run({ transaction: 1, phase: "inside" }, Effect.gen(function*() {
          const detached = yield* Effect.forkDetach(h.boundary.sql.withTransaction(h.insert(1)))
          return yield* Fiber.join(detached)
        }))
        h.boundary.arm(undefined)
        yield* h.boundary.sql.withTransaction(h.insert(2))
        return { crash: crashed(outcome), rows: yield* h.rows }
      }))
    expect(result).toEqual({ crash: { transaction: 1, phase: "inside" }, rows: [2] })
  })

  it("work run uninterruptibly goes on past a crash, and its writes land where the model can see them", async () => {
    const result = await withHarness(adapters[name]!, (h) =>
      Effect.gen(function*() {
        const outcome = yield* h.run({ transaction: 1, phase: "inside" }, Effect.uninterruptible(Effect.gen(function*() {
          yield* Effect.exit(h.boundary.sql.withTransaction(h.insert(1)))
          yield* h.boundary.sql.withTransaction(h.insert(2))
        })))
        return { crash: crashed(outcome), rows: yield* h.rows }
      }))
    expect(result).toEqual({ crash: { transaction: 1, phase: "inside" }, rows: [2] })
  })
})
