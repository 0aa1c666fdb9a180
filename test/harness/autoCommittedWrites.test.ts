/**
 * Writes outside any transaction at the storage boundary, on every in-process adapter: SQL runs each as
 * a transaction of its own, so the boundary counts it, pauses before it and faults it as one, with no
 * help from the code under test (`harness/AutoCommittedWrites.ts`). Reads outside a transaction are not
 * counted as transactions; a nested boundary's writes are its own; a boundary built without it sees
 * none of its writes, but still its reads (`readFails`).
 */
import { Cause, Effect, Exit } from "effect"
import type { SqlClient } from "effect/sql"
import { isSqlError } from "effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { withBoundaryPoints } from "../../harness/BoundaryPoints.ts"
import type { StorageFault } from "../../harness/Faults.ts"
import { watchStatements } from "../../harness/StatementWatch.ts"
import { type BoundaryOptions, type BoundedOutcome, makeStorageBoundary, type StorageBoundary } from "../../harness/StorageBoundary.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()

interface Fixture {
  readonly raw: SqlClient.SqlClient
  /** A second connection of the same database: another client (postgres only; undefined elsewhere). */
  readonly other: SqlClient.SqlClient | undefined
  readonly makeBoundary: (options?: BoundaryOptions) => StorageBoundary
  readonly rows: Effect.Effect<ReadonlyArray<number>, unknown>
}

const withFixture = <A>(adapter: StorageAdapter, body: (f: Fixture) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* adapter.open({ connections: 2 })
    const raw: SqlClient.SqlClient = database.sql
    yield* raw.unsafe("CREATE TABLE t (v INTEGER NOT NULL)")
    return yield* body({
      raw,
      other: database.connections[1],
      makeBoundary: (options) => makeStorageBoundary(raw, database.platformAlarm, options),
      rows: Effect.map(raw.unsafe<{ readonly v: unknown }>("SELECT v FROM t ORDER BY v"), (rows) => rows.map((row) => Number(row.v)))
    })
  })))

const insert = (boundary: StorageBoundary, value: number) => Effect.asVoid(boundary.sql`INSERT INTO t (v) VALUES (${value})`)

const armedRun = <A, E>(boundary: StorageBoundary, fault: StorageFault | undefined, operation: Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    boundary.arm(fault)
    return boundary.run(operation)
  })

/** How an outcome ended, in one word: the crash phase, the SqlError's reason, or `ok`. */
const endOf = (outcome: BoundedOutcome<unknown, unknown>): string => {
  if (outcome._tag === "Crashed") return `crashed ${outcome.crash.phase}`
  if (Exit.isSuccess(outcome.exit)) return "ok"
  const error = Cause.squash(outcome.exit.cause)
  return isSqlError(error) ? error.reason._tag : String(error)
}

describe.each(NODE_ADAPTER_NAMES)("auto-committed writes at the storage boundary on %s", (name) => {
  it("each fault acts on a write outside any transaction as on a transaction of one statement", async () => {
    const cases: ReadonlyArray<readonly [StorageFault, number]> = [
      [{ transaction: 1, phase: "inside" }, 10],
      [{ transaction: 1, phase: "afterCommit" }, 11],
      [{ transaction: 1, phase: "lostReply" }, 12],
      [{ transaction: 1, phase: "commitRefused" }, 13],
      [{ transaction: 1, phase: "statementFails", statement: 1 }, 14],
      [{ transaction: 1, phase: "statementFails", statement: 2 }, 15]
    ]
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const boundary = f.makeBoundary()
        const ends: Array<string> = []
        for (const [fault, value] of cases) {
          ends.push(endOf(yield* armedRun(boundary, fault, insert(boundary, value))))
          ends.push(`${boundary.transactionsStarted()}/${boundary.transactionsCommitted()}/${boundary.statementFaultOutcome()}`)
        }
        return { ends, rows: yield* f.rows }
      }))
    expect(result.ends).toEqual([
      "crashed inside", "1/0/null",
      "crashed afterCommit", "1/1/null",
      "UnknownError", "1/1/null", // the reply was lost: the caller sees a storage failure, the write landed
      "SerializationError", "1/0/null",
      // Its one statement fails as the backend fails one: Postgres's deadlock victim, SQLite's full disk.
      name === "sqlite" ? "UnknownError" : "DeadlockError", "1/0/statementFailed",
      "SerializationError", "1/0/commitRefusedInstead"
    ])
    expect(result.rows).toEqual([11, 12])
  })

  it("a read outside a transaction is not counted: a fault names the writes and transactions only", async () => {
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const boundary = f.makeBoundary()
        const outcome = yield* armedRun(boundary, { transaction: 2, phase: "inside" }, Effect.gen(function*() {
          yield* boundary.sql`SELECT v FROM t`
          yield* insert(boundary, 1)
          yield* boundary.sql`SELECT v FROM t`
          yield* boundary.sql.withTransaction(insert(boundary, 2))
        }))
        return { end: endOf(outcome), started: boundary.transactionsStarted(), rows: yield* f.rows }
      }))
    expect(result).toEqual({ end: "crashed inside", started: 2, rows: [1] })
  })

  it("reaches the point before a transaction begins before each write outside one, and never before a read", async () => {
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const boundary = f.makeBoundary()
        const seen: Array<string> = []
        boundary.setTransactionPoints({ beforeBegin: Effect.sync(() => void seen.push(`before #${boundary.transactionsStarted() + 1}`)) })
        yield* armedRun(boundary, undefined, Effect.gen(function*() {
          yield* boundary.sql`SELECT v FROM t`
          yield* insert(boundary, 1)
          seen.push("wrote 1")
          yield* boundary.sql.withTransaction(insert(boundary, 2))
          seen.push("wrote 2")
        }))
        return seen
      }))
    expect(result).toEqual(["before #1", "wrote 1", "before #2", "wrote 2"])
  })

  it("a boundary run from inside another's operation counts its own writes; the outer one does not see them", async () => {
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const outer = f.makeBoundary()
        const nested = f.makeBoundary()
        const outcome = yield* armedRun(outer, { transaction: 1, phase: "inside" }, Effect.gen(function*() {
          yield* armedRun(nested, undefined, insert(nested, 1))
          yield* insert(outer, 2)
        }))
        return { end: endOf(outcome), outerStarted: outer.transactionsStarted(), nestedStarted: nested.transactionsStarted(), rows: yield* f.rows }
      }))
    expect(result).toEqual({ end: "crashed inside", outerStarted: 1, nestedStarted: 1, rows: [1] })
  })

  it("an operation a race runs without `run` reaches the points before its writes outside a transaction too", async () => {
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const boundary = f.makeBoundary()
        const seen: Array<string> = []
        boundary.arm(undefined)
        yield* withBoundaryPoints(boundary, { beforeBegin: Effect.sync(() => void seen.push("before")) }, Effect.gen(function*() {
          yield* insert(boundary, 1)
          seen.push("wrote 1")
        }))
        yield* insert(boundary, 2) // the points are cleared after the race
        return { seen, started: boundary.transactionsStarted() }
      }))
    expect(result).toEqual({ seen: ["before", "wrote 1"], started: 1 })
  })

  it("a watch outside the boundary sees a write once, after the boundary let it through, and never a write crashed before it ran", async () => {
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const boundary = f.makeBoundary()
        const seen: Array<string> = []
        boundary.setTransactionPoints({ beforeBegin: Effect.sync(() => void seen.push("before")) })
        const watchedRun = (fault: StorageFault | undefined, value: number) =>
          watchStatements(armedRun(boundary, fault, insert(boundary, value)), f.raw.transactionService, (statement) => {
            if (!statement.inTransaction) seen.push(`${statement.text.split(" ")[0]} ${value}`)
          })
        yield* watchedRun(undefined, 1)
        yield* watchedRun({ transaction: 1, phase: "lostReply" }, 2)
        yield* watchedRun({ transaction: 1, phase: "inside" }, 3)
        return { seen, rows: yield* f.rows }
      }))
    expect(result).toEqual({ seen: ["before", "INSERT 1", "before", "INSERT 2", "before"], rows: [1, 2] })
  })

  it("built with autoCommittedWrites off, a write outside any transaction is neither counted nor faulted", async () => {
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const boundary = f.makeBoundary({ autoCommittedWrites: false })
        const outcome = yield* armedRun(boundary, { transaction: 1, phase: "inside" }, insert(boundary, 1))
        return { end: endOf(outcome), started: boundary.transactionsStarted(), rows: yield* f.rows }
      }))
    expect(result).toEqual({ end: "ok", started: 0, rows: [1] })
  })

  it("built with autoCommittedWrites off, a read outside any transaction is still counted and failed by readFails", async () => {
    const result = await withFixture(adapters[name]!, (f) =>
      Effect.gen(function*() {
        const boundary = f.makeBoundary({ autoCommittedWrites: false })
        const read = boundary.sql`SELECT v FROM t`
        const outcome = yield* armedRun(boundary, { transaction: 1, phase: "readFails", statement: 2 }, Effect.andThen(insert(boundary, 1), Effect.andThen(read, read)))
        return { end: endOf(outcome), reads: boundary.readsOutside(), rows: yield* f.rows }
      }))
    // The write passed unseen (it landed, uncounted), the second read failed before it ran.
    expect(result).toEqual({ end: "ConnectionError", reads: { started: 2, failed: true }, rows: [1] })
  })
})

describe("auto-committed writes of another client on postgres", () => {
  it("a write on another connection, run inside the boundary's operation, is not the boundary's", async () => {
    const result = await withFixture(adapters.postgres!, (f) =>
      Effect.gen(function*() {
        const other = f.other
        if (other === undefined) return yield* Effect.die(new Error("invariant: the postgres adapter opens independent connections"))
        const boundary = f.makeBoundary()
        const outcome = yield* armedRun(boundary, { transaction: 1, phase: "inside" }, Effect.gen(function*() {
          yield* other`INSERT INTO t (v) VALUES (${1})`
          yield* insert(boundary, 2)
        }))
        return { end: endOf(outcome), started: boundary.transactionsStarted(), rows: yield* f.rows }
      }))
    expect(result).toEqual({ end: "crashed inside", started: 1, rows: [1] })
  })

  it("boundaries over two connections nest without hiding each other's writes", async () => {
    const result = await withFixture(adapters.postgres!, (f) =>
      Effect.gen(function*() {
        const other = f.other
        if (other === undefined) return yield* Effect.die(new Error("invariant: the postgres adapter opens independent connections"))
        const first = f.makeBoundary()
        const second = makeStorageBoundary(other, { get: Effect.succeed(null), set: () => Effect.void, delete: Effect.void })
        const seen: Array<string> = []
        const note = (label: string) => ({ beforeBegin: Effect.sync(() => void seen.push(label)) })
        first.arm(undefined)
        second.arm(undefined)
        // As content's lock race: the racer's boundary wraps an effect that also runs the first boundary's writes.
        yield* withBoundaryPoints(first, note("first"), withBoundaryPoints(second, note("second"), Effect.gen(function*() {
          yield* insert(first, 1)
          yield* other`INSERT INTO t (v) VALUES (${2})`
        })))
        return { seen, first: first.transactionsStarted(), second: second.transactionsStarted() }
      }))
    expect(result).toEqual({ seen: ["first", "second"], first: 1, second: 1 })
  })
})
