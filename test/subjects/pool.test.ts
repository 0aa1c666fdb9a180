/**
 * The shipped bounded pool against the real Postgres server, observed on the wire (`PostgresWireTap`):
 * P1 admission refuses the checkout past maxConnections + 64 at once and sends nothing; P2 waiters
 * are granted in arrival order, also when the releasing fiber checks out again at once; P3 the
 * driver pool never opens more sessions than connections; P4 a statement inside a transaction takes
 * no slot; P5 an aborted transaction's COMMIT fails; P6 notify rejects 64-byte channels and uses its
 * own session outside the caller's transaction; P7 the retry helper retries refusals only, on the
 * virtual clock, 10 ms doubling to 250 ms.
 */
import { Clock, Deferred, Duration, Effect, Exit, Fiber, Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import type { PostgresWireTap } from "../../harness/PostgresWireTap.ts"
import { tappedPoolConfig } from "../../properties/pool/connection.ts"
import type { BoundedPoolClient } from "../../subjects/pool/api.ts"
import { isPoolRefusal, POOL_WAITERS, poolRefusal, PoolRefused, shippedPool } from "../../subjects/pool/index.ts"
import { retryDelayMs } from "../../subjects/pool/retry.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

const postgres = usePostgresAdapter()

const TEST_TIMEOUT_MS = 30_000

/** Runs `body` with a fresh tapped pool of `maxConnections` under a virtual clock. */
const withPool = <A>(maxConnections: number, body: (pool: BoundedPoolClient, tap: PostgresWireTap) => Effect.Effect<A, unknown, Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* postgres().open()
    const tapped = tappedPoolConfig(database.sql, maxConnections)!
    const pool = yield* shippedPool.boundedPool(tapped.config).pipe(Effect.provide(Reactivity.layer))
    return yield* body(pool, tapped.tap)
  })).pipe(Effect.provide(TestClock.layer())))

const texts = (tap: PostgresWireTap) => tap.statements().map((statement) => statement.text)

/** Holds a reserved connection after one tagged statement until `release` completes. */
const holder = (pool: BoundedPoolClient, tag: string, release: Deferred.Deferred<void>, holding: Deferred.Deferred<void>) =>
  Effect.scoped(Effect.gen(function*() {
    const connection = yield* pool.reserve
    yield* connection.execute(`SELECT '${tag}'`, [], undefined)
    yield* Deferred.succeed(holding, undefined)
    yield* Deferred.await(release)
  }))

describe("bounded pool (shipped) on a real server", () => {
  it("refuses the checkout past maxConnections + 64 at once, recognisably, sending nothing", () =>
    withPool(1, (pool, tap) =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        const holding = yield* Deferred.make<void>()
        const first = yield* Effect.forkChild(holder(pool, "h", release, holding))
        yield* Deferred.await(holding)
        const waiters = yield* Effect.forEach(Array.from({ length: POOL_WAITERS }, (_, index) => index), (index) =>
          Effect.forkChild(pool.unsafe(`SELECT 'w${index}'`)))
        yield* Effect.yieldNow
        const refused = yield* Effect.exit(pool.unsafe("SELECT 'refused'"))
        expect(Exit.isFailure(refused)).toBe(true)
        const error = Exit.findErrorOption(refused)
        expect(error._tag === "Some" && isPoolRefusal(error.value)).toBe(true)
        expect(texts(tap)).toEqual(["SELECT 'h'"])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        for (const waiter of waiters) yield* Fiber.join(waiter)
        expect(texts(tap)).toEqual(["SELECT 'h'", ...Array.from({ length: POOL_WAITERS }, (_, index) => `SELECT 'w${index}'`)])
        expect(texts(tap)).not.toContain("SELECT 'refused'")
        expect(tap.peakSessions()).toBe(1)
      })), TEST_TIMEOUT_MS)

  it("grants waiters in arrival order, ahead of the releasing fiber's next checkout", () =>
    withPool(1, (pool, tap) =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        const holding = yield* Deferred.make<void>()
        const first = yield* Effect.forkChild(Effect.andThen(holder(pool, "a", release, holding), pool.unsafe("SELECT 'a-again'")))
        yield* Deferred.await(holding)
        const b = yield* Effect.forkChild(pool.unsafe("SELECT 'b'"))
        yield* Effect.yieldNow
        const c = yield* Effect.forkChild(pool.unsafe("SELECT 'c'"))
        yield* Effect.yieldNow
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        yield* Fiber.join(b)
        yield* Fiber.join(c)
        expect(texts(tap)).toEqual(["SELECT 'a'", "SELECT 'b'", "SELECT 'c'", "SELECT 'a-again'"])
      })), TEST_TIMEOUT_MS)

  it("runs statements inside a transaction on its connection without a slot, and fails an aborted COMMIT", () =>
    withPool(1, (pool, tap) =>
      Effect.gen(function*() {
        const committed = yield* pool.withTransaction(Effect.gen(function*() {
          yield* pool.unsafe("SELECT 'one'")
          return yield* pool.unsafe<{ readonly two: string }>("SELECT 'two' AS two")
        }))
        expect(committed).toEqual([{ two: "two" }])
        const aborted = yield* Effect.exit(pool.withTransaction(Effect.ignore(pool.unsafe("SELECT 1/0"))))
        const error = Exit.findErrorOption(aborted)
        expect(error._tag === "Some" && error.value instanceof SqlError && error.value.reason._tag === "UnknownError").toBe(true)
        expect(error._tag === "Some" && isPoolRefusal(error.value)).toBe(false)
        expect(tap.statements().filter((statement) => statement.text === "SELECT 'two' AS two")[0]?.transactionStatus).toBe("T")
        expect(tap.peakSessions()).toBe(1)
      })), TEST_TIMEOUT_MS)

  it("notify rejects a channel over 63 UTF-8 bytes before sending, and runs outside the caller's transaction", () =>
    withPool(2, (pool, tap) =>
      Effect.gen(function*() {
        const long = yield* Effect.exit(pool.notify(`c-${"é".repeat(31)}`, "x"))
        expect(Exit.isFailure(long)).toBe(true)
        expect(tap.statements()).toEqual([])
        yield* pool.notify(`c-${"é".repeat(30)}`, "fits")
        yield* pool.withTransaction(Effect.andThen(pool.unsafe("SELECT 'in-transaction'"), pool.notify("pool-test", "inside")))
        const notifies = tap.statements().filter((statement) => /pg_notify/.test(statement.text))
        expect(notifies.map((statement) => [statement.params[1], statement.transactionStatus])).toEqual([["fits", "I"], ["inside", "I"]])
        const transactional = tap.statements().find((statement) => statement.text === "SELECT 'in-transaction'")!
        expect(notifies[1]!.session).not.toBe(transactional.session)
      })), TEST_TIMEOUT_MS)

  it("retries only pool refusals, on the virtual clock: 10, 20, 40 ms ...", () =>
    withPool(1, (pool, tap) =>
      Effect.gen(function*() {
        const failed = yield* Effect.exit(shippedPool.retryPoolRefusal(pool.unsafe("SELECT 'once'::int")))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(texts(tap).filter((text) => text.includes("once"))).toHaveLength(1)
        let attempts = 0
        const refusing = Effect.suspend(() => {
          attempts += 1
          return attempts < 4 ? Effect.fail(poolRefusal(new PoolRefused({ admitted: 65 }))) : Effect.succeed("admitted")
        })
        const fiber = yield* Effect.forkChild(shippedPool.retryPoolRefusal(refusing))
        yield* Effect.yieldNow
        const seen: Array<number> = []
        for (const stepMs of [9, 1, 19, 1, 39, 1]) {
          yield* TestClock.adjust(Duration.millis(stepMs))
          seen.push(attempts)
        }
        expect(seen).toEqual([1, 2, 2, 3, 3, 4])
        expect(yield* Fiber.join(fiber)).toBe("admitted")
      })), TEST_TIMEOUT_MS)
})

describe("pool refusal helpers", () => {
  it("isPoolRefusal recognises only the refusal, never another SqlError", () => {
    expect(isPoolRefusal(poolRefusal(new PoolRefused({ admitted: 65 })))).toBe(true)
    expect(isPoolRefusal(new SqlError({ reason: new UnknownError({ cause: new Error("x"), message: "x", operation: "commit" }) }))).toBe(false)
    expect(isPoolRefusal(new PoolRefused({ admitted: 65 }))).toBe(false)
    expect(isPoolRefusal(undefined)).toBe(false)
  })

  it("the shipped retry helper waits exactly the delays the model uses (10 ms doubling, capped at 250 ms)", async () => {
    const gapsMs = await Effect.runPromise(Effect.gen(function*() {
      const times: Array<number> = []
      const refusing = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        times.push(now)
        return times.length <= 8 ? Effect.fail(poolRefusal(new PoolRefused({ admitted: 65 }))) : Effect.succeed(now)
      })
      const fiber = yield* Effect.forkChild(shippedPool.retryPoolRefusal(refusing))
      yield* Effect.yieldNow
      yield* TestClock.adjust(Duration.millis(2_000))
      yield* Fiber.join(fiber)
      return times.slice(1).map((time, index) => time - times[index]!)
    }).pipe(Effect.provide(TestClock.layer())))
    expect(gapsMs).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelayMs))
    expect(gapsMs).toEqual([10, 20, 40, 80, 160, 250, 250, 250])
  })
})
