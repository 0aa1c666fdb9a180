/**
 * Engine test: interleavings as generated data drive truly concurrent transactions on a real
 * PostgreSQL server.
 *
 * Two transactions, T1 on connection 0 and T2 on connection 1, each do a read-modify-write of one
 * counter row (`SELECT ... FOR UPDATE`, then `value = value * 10 + digit`). Each pauses at hook
 * points (`beforeLock`, `afterLock`) through the scripted hook controller; fast-check generates the
 * release order (and the digits, the start value and the isolation level). The order decides the
 * exact outcome, which is asserted per case:
 * - READ COMMITTED: the first released applies first, the second waits on the row lock and then
 *   applies on top: final = (start * 10 + d_first) * 10 + d_second.
 * - REPEATABLE READ: the second's snapshot predates the first's commit, so its `FOR UPDATE` fails with
 *   a serialization failure: final = start * 10 + d_first, and the second fails with
 *   `SerializationError`.
 * It also proves both transactions were open at the same time on separate sessions (both "idle in
 * transaction" with an assigned xid while paused) and that the second really blocked on the first's
 * row lock (`pg_blocking_pids`) while the first was paused holding it.
 *
 * Cannot deadlock: each transaction locks one row only; every statement has `lock_timeout`, and each
 * case is bounded by `CASE_TIMEOUT`.
 */
import { Duration, Effect, Exit, Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { hookPoint, labelled, makeScriptedHooks, withScriptedHooks } from "../../harness/HookPoints.ts"
import { releaseOrderArbitrary, runInterleaved } from "../../harness/Interleaving.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

/** Bound on one generated case (open, choreography, close). */
const CASE_TIMEOUT = Duration.seconds(30)
/** Bound on polling the server for "T2 waits on T1's lock". */
const MAX_BLOCKING_POLLS = 2_000
const BLOCKING_POLL_INTERVAL = Duration.millis(5)

type Isolation = "read committed" | "repeatable read"

/** What one transaction observed, filled in as it runs. */
interface Observed {
  pid?: number
  xid?: string
  seen?: number
  /** `pg_xact_status` of the other transaction, read right after this one's release. */
  otherStatusAfterRelease?: string
}

const postgres = usePostgresAdapter()

/** One transaction's read-modify-write, with hook points before taking and after holding the row lock. */
const readModifyWrite = (
  sql: SqlClient.SqlClient,
  digit: number,
  isolation: Isolation,
  observed: Observed,
  other: Observed
) =>
  sql.withTransaction(Effect.gen(function*() {
    if (isolation === "repeatable read") yield* sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    yield* sql.unsafe("SET LOCAL lock_timeout = '15s'")
    const me = yield* sql<{ readonly pid: number; readonly xid: string }>`
      SELECT pg_backend_pid() AS pid, pg_current_xact_id()::text AS xid`
    observed.pid = me[0]!.pid
    observed.xid = me[0]!.xid
    yield* hookPoint("beforeLock")
    if (other.xid !== undefined) {
      const status = yield* sql<{ readonly status: string }>`SELECT pg_xact_status(${other.xid}::xid8) AS status`
      observed.otherStatusAfterRelease = status[0]!.status
    }
    const row = yield* sql<{ readonly value: number }>`SELECT value FROM counter WHERE id = 1 FOR UPDATE`
    observed.seen = row[0]!.value
    yield* sql`UPDATE counter SET value = value * 10 + ${digit} WHERE id = 1`
    yield* hookPoint("afterLock")
  }))

const LABELS = ["T1", "T2"] as const

const setUpCounter = (sql: SqlClient.SqlClient, start: number) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE counter (id INTEGER PRIMARY KEY, value BIGINT NOT NULL)`
    yield* sql`INSERT INTO counter VALUES (1, ${start})`
  })

const readCounter = (sql: SqlClient.SqlClient) =>
  sql<{ readonly value: number }>`SELECT value FROM counter WHERE id = 1`.pipe(Effect.map((rows) => rows[0]!.value))

/** Polls (bounded) until the server reports `waiter` blocked by `holder`. */
const awaitBlockedBy = (observer: SqlClient.SqlClient, waiter: number, holder: number) =>
  Effect.gen(function*() {
    for (let poll = 0; poll < MAX_BLOCKING_POLLS; poll++) {
      const rows = yield* observer<{ readonly blockers: ReadonlyArray<number> }>`SELECT pg_blocking_pids(${waiter}) AS blockers`
      if (rows[0]!.blockers.includes(holder)) return true
      yield* Effect.sleep(BLOCKING_POLL_INTERVAL)
    }
    return false
  })

interface Case {
  readonly order: ReadonlyArray<number>
  readonly digits: readonly [number, number]
  readonly start: number
  readonly isolation: Isolation
}

interface Outcome {
  readonly bothOpenWhilePaused: number
  readonly secondBlockedByFirst: boolean
  readonly observed: readonly [Observed, Observed]
  readonly exits: readonly [Exit.Exit<void, unknown>, Exit.Exit<void, unknown>]
  readonly final: number
}

/** Runs one generated case: pause both, release in `order`, the second blocking on the first's lock. */
const runCase = (testCase: Case) =>
  Effect.scoped(Effect.gen(function*() {
    const db = yield* postgres().open({ connections: 3 })
    const observer = db.connections[2]!
    yield* setUpCounter(db.sql, testCase.start)
    const hooks = yield* makeScriptedHooks
    const observed: [Observed, Observed] = [{}, {}]
    for (const label of LABELS) yield* hooks.pauseAt(label, "beforeLock")
    const fibers = [
      yield* Effect.forkChild(withScriptedHooks(hooks, labelled("T1", readModifyWrite(db.connections[0]!, testCase.digits[0], testCase.isolation, observed[0], observed[1])))),
      yield* Effect.forkChild(withScriptedHooks(hooks, labelled("T2", readModifyWrite(db.connections[1]!, testCase.digits[1], testCase.isolation, observed[1], observed[0]))))
    ] as const
    for (const label of LABELS) yield* hooks.awaitPaused(label)

    // Both transactions are open right now, on two sessions, each with its own transaction id.
    const open = yield* observer<{ readonly n: number }>`
      SELECT count(*) AS n FROM pg_stat_activity
      WHERE pid IN (${observed[0].pid!}, ${observed[1].pid!}) AND state = 'idle in transaction' AND backend_xid IS NOT NULL`

    const [first, second] = [testCase.order[0]!, testCase.order[1]!]
    const [firstLabel, secondLabel] = [LABELS[first]!, LABELS[second]!]
    const [firstSaw, secondSaw] = [observed[first]!, observed[second]!]
    // The first takes the row lock and pauses holding it. Re-arming right after the release is safe:
    // the released fiber needs a server round trip before it can reach `afterLock`.
    yield* hooks.release(firstLabel)
    yield* hooks.pauseAt(firstLabel, "afterLock")
    const pausedAt = yield* hooks.awaitPaused(firstLabel)
    expect(pausedAt.hook).toBe("afterLock")
    // The second now runs into the lock and must wait for the first.
    yield* hooks.release(secondLabel)
    const secondBlockedByFirst = yield* awaitBlockedBy(observer, secondSaw.pid!, firstSaw.pid!)
    yield* hooks.release(firstLabel)
    const exits = [yield* Fiber.await(fibers[0]), yield* Fiber.await(fibers[1])] as const
    const final = yield* readCounter(observer)
    const outcome: Outcome = { bothOpenWhilePaused: open[0]!.n, secondBlockedByFirst, observed, exits, final }
    return outcome
  })).pipe(Effect.timeout(CASE_TIMEOUT))

const failureTag = (exit: Exit.Exit<void, unknown>): string | undefined => {
  if (!Exit.isFailure(exit)) return undefined
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error as
    | { readonly reason?: { readonly _tag?: string } }
    | undefined
  return error?.reason?._tag ?? "defect"
}

describe("concurrency engine on postgres", () => {
  it("releases two paused, truly concurrent transactions in a generated order with the predicted outcome", async () => {
    const seenOrders = new Set<string>()
    const seenIsolations = new Set<Isolation>()
    await fc.assert(
      fc.asyncProperty(
        releaseOrderArbitrary(2),
        fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 })),
        fc.integer({ min: 0, max: 99 }),
        fc.constantFrom<Isolation>("read committed", "repeatable read"),
        async (order, digits, start, isolation) => {
          seenOrders.add(order.join(","))
          seenIsolations.add(isolation)
          const outcome = await Effect.runPromise(runCase({ order, digits, start, isolation }))
          const [first, second] = [order[0]!, order[1]!]
          const [firstSaw, secondSaw] = [outcome.observed[first]!, outcome.observed[second]!]
          const [firstExit, secondExit] = [outcome.exits[first]!, outcome.exits[second]!]
          const afterFirst = start * 10 + digits[first]!

          // Simultaneously open on two sessions, then the second really blocked on the first's row lock.
          expect(outcome.bothOpenWhilePaused).toBe(2)
          expect(firstSaw.pid).not.toBe(secondSaw.pid)
          expect(firstSaw.otherStatusAfterRelease).toBe("in progress")
          expect(outcome.secondBlockedByFirst).toBe(true)
          expect(firstSaw.seen).toBe(start)
          expect(failureTag(firstExit)).toBeUndefined()

          // The second was released while the first still held the lock, uncommitted.
          expect(secondSaw.otherStatusAfterRelease).toBe("in progress")

          if (isolation === "read committed") {
            expect(secondSaw.seen).toBe(afterFirst)
            expect(failureTag(secondExit)).toBeUndefined()
            expect(outcome.final).toBe(afterFirst * 10 + digits[second]!)
          } else {
            expect(failureTag(secondExit)).toBe("SerializationError")
            expect(secondSaw.seen).toBeUndefined()
            expect(outcome.final).toBe(afterFirst)
          }
        }
      ),
      { numRuns: 24, endOnFailure: true }
    )
    // The generator must have exercised both orders and both isolation levels.
    expect(seenOrders).toEqual(new Set(["0,1", "1,0"]))
    expect(seenIsolations.size).toBe(2)
  })

  it("runInterleaved serialises paused transactions in the generated order (read committed)", async () => {
    await fc.assert(
      fc.asyncProperty(
        releaseOrderArbitrary(2),
        fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 })),
        async (order, digits) => {
          const result = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
            const db = yield* postgres().open({ connections: 2 })
            yield* setUpCounter(db.sql, 0)
            const hooks = yield* makeScriptedHooks
            const observed: [Observed, Observed] = [{}, {}]
            const exits = yield* runInterleaved(
              hooks,
              LABELS.map((label, index) => ({
                label,
                pauseAt: "beforeLock",
                effect: readModifyWrite(db.connections[index]!, digits[index]!, "read committed", observed[index]!, observed[1 - index]!)
              })),
              order
            )
            return { exits, observed, final: yield* readCounter(db.sql) }
          })).pipe(Effect.timeout(CASE_TIMEOUT)))
          const [first, second] = [order[0]!, order[1]!]
          const [firstSaw, secondSaw] = [result.observed[first]!, result.observed[second]!]
          expect(result.exits.every(Exit.isSuccess)).toBe(true)
          // Both were open together: the first released saw the paused second still in progress.
          expect(firstSaw.otherStatusAfterRelease).toBe("in progress")
          expect(secondSaw.otherStatusAfterRelease).toBe("committed")
          expect(secondSaw.seen).toBe(digits[first])
          expect(result.final).toBe(digits[first]! * 10 + digits[second]!)
        }
      ),
      { numRuns: 10, endOnFailure: true }
    )
  })
})
