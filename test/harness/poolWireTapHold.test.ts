/**
 * The wire tap's held replies and delivered notifications, and the pool properties' use of them, on a
 * real Postgres server:
 * - `holdReply`: the selected statement reaches the server and its whole answer reaches the tap, but
 *   not the client, until `release()`; then the client gets exactly that answer; `releaseAndHold`
 *   holds the statement the released answer lets the client write next;
 * - hand-written pool scenarios (maxConnections 1): a checkout interrupted while the server has its
 *   statement, or its COMMIT (plain or answered with ROLLBACK), gives its slot back and the next
 *   checkout on the connection gets its own answer, never the old one; two listeners receive a
 *   notify's payload on their channel, and a third listener started after it does not;
 * - the gate's scenarios of `pool/model` really hold replies and deliver notifications.
 */
import * as Reactivity from "effect/reactivity/Reactivity"
import { Effect, Fiber } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { propertySeed } from "../../harness/Conformance.ts"
import type { Json } from "../../harness/Property.ts"
import { awaitQuiet } from "../../harness/Quiescence.ts"
import { executeScenario } from "../../harness/Runner.ts"
import type { PoolCommand } from "../../models/pool/index.ts"
import { tappedPoolConfig } from "../../properties/pool/connection.ts"
import { poolSuite } from "../../properties/pool/index.ts"
import { shippedPool } from "../../subjects/pool/index.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

const postgres = usePostgresAdapter()

const start = (kind: "acquire" | "transaction" | "listen" | "borrow" | "notify", extra: Partial<Extract<PoolCommand, { op: "start" }>> = {}): PoolCommand =>
  ({ op: "start", kind, retry: false, failing: false, longChannel: false, inside: null, ...extra })

const runScenario = (maxConnections: number, commands: ReadonlyArray<PoolCommand>) =>
  Effect.runPromise(executeScenario(poolSuite().properties[0]!, postgres(), { maxConnections, commands } as unknown as Json))

/** The shipped pool of one connection over a fresh database, through a wire tap, warmed by one statement. */
const tappedPool = Effect.gen(function*() {
  const database = yield* postgres().open({ connections: 1 })
  const tapped = tappedPoolConfig(database.sql, 1)!
  yield* Effect.addFinalizer(() => Effect.sync(() => tapped.tap.close()))
  const pool = yield* shippedPool.boundedPool(tapped.config).pipe(Effect.provide(Reactivity.layer))
  yield* pool.unsafe("SELECT 1 AS warm")
  return { tap: tapped.tap, pool }
})

describe("PostgresWireTap.holdReply", () => {
  it("keeps the server's answer from the client until released, then hands over exactly that answer", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const tapped = yield* tappedPool
      const pool = tapped.pool
      const hold = tapped.tap.holdReply((statement) => statement.text.includes("held-reply"))
      const fiber = yield* Effect.forkChild(pool.unsafe("SELECT 'held-reply' AS v"))
      yield* awaitQuiet(tapped.tap)
      expect(hold.sent()).toBe(true)
      expect(hold.held()).toBe(true)
      expect(fiber.pollUnsafe()).toBeUndefined()
      hold.release()
      const rows = yield* Fiber.join(fiber)
      expect(rows).toEqual([{ v: "held-reply" }])
      expect(hold.held()).toBe(false)
    })))
  }, 60_000)

  it("releaseAndHold arms the next hold before the released answer lets the client write its next statement", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const tapped = yield* tappedPool
      const pool = tapped.pool
      const first = tapped.tap.holdReply((statement) => statement.text.includes("first-held"))
      // One fiber writes the second statement as soon as the first answer reaches it.
      const fiber = yield* Effect.forkChild(Effect.andThen(pool.unsafe("SELECT 'first-held' AS v"), pool.unsafe("SELECT 'second-held' AS v")))
      yield* awaitQuiet(tapped.tap)
      expect(first.held()).toBe(true)
      const second = first.releaseAndHold((statement) => statement.text.includes("second-held"))
      expect(() => first.releaseAndHold(() => true)).toThrow(/already released/)
      yield* awaitQuiet(tapped.tap)
      expect(second.sent()).toBe(true)
      expect(second.held()).toBe(true)
      expect(fiber.pollUnsafe()).toBeUndefined()
      second.release()
      expect(yield* Fiber.join(fiber)).toEqual([{ v: "second-held" }])
    })))
  }, 60_000)
})

describe("pool scenarios with replies held and notifications delivered", () => {
  const cases: ReadonlyArray<readonly [string, number, ReadonlyArray<PoolCommand>]> = [
    ["acquire interrupted in flight, then the next acquire", 1, [start("acquire", { holdReply: true }), start("acquire")]],
    ["borrow interrupted in flight, then a borrow", 1, [start("borrow", { holdReply: true }), start("borrow")]],
    ["transaction interrupted in flight, then an acquire", 1, [start("transaction", { holdReply: true }), start("acquire")]],
    ["COMMIT interrupted in flight, with a waiter", 1, [start("transaction"), start("acquire"), { op: "release", pick: 0, reborrow: false, holdCommit: true }]],
    ["COMMIT answered with ROLLBACK interrupted in flight", 1, [start("transaction", { failing: true }), { op: "release", pick: 0, reborrow: false, holdCommit: true }, start("borrow")]],
    ["two listeners receive a notify, a later one does not", 4, [start("listen"), start("listen"), start("notify"), start("listen"), start("notify")]]
  ]
  for (const [name, maxConnections, commands] of cases) {
    it(`${name}: implementation and model agree`, async () => {
      const trace = await runScenario(maxConnections, commands)
      expect(trace.divergence ?? null, JSON.stringify(trace.divergence)).toBeNull()
      expect(trace.steps.length).toBe(commands.length + 1)
    }, 60_000)
  }

  it("listeners' deliveries are visible in the trace (two notifications to the first two, one to the third)", async () => {
    const trace = await runScenario(4, cases[5]![2])
    const last = trace.steps[commands5Last]!.implementation as Record<string, string>
    expect([last.o1, last.o2, last.o4]).toEqual(["holding#0~2", "holding#0~2", "holding#0~1"])
  }, 60_000)

  it("the gate's pool/model scenarios hold replies of statements and COMMITs and deliver notifications", async () => {
    const property = poolSuite().properties[0]!
    const scenarios = fc.sample(property.scenario(postgres().capabilities), { numRuns: DEFAULT_RUNS, seed: propertySeed(DEFAULT_SEED, property.id, "postgres") })
    const operations = new Map<string, number>()
    let deliveries = 0
    for (const scenario of scenarios) {
      const trace = await Effect.runPromise(executeScenario(property, postgres(), scenario as never))
      expect(trace.divergence ?? null, JSON.stringify(trace.divergence)).toBeNull()
      for (const step of trace.steps) {
        operations.set(step.operation, (operations.get(step.operation) ?? 0) + 1)
        const view = (step.implementation ?? {}) as Record<string, string>
        deliveries = Math.max(deliveries, ...Object.values(view).map((entry) => Number(/~(\d+)$/.exec(String(entry))?.[1] ?? 0)))
      }
    }
    console.log(`pool/model steps by operation: ${JSON.stringify(Object.fromEntries(operations))}; most notifications one listener received: ${deliveries}`)
    expect(operations.get("interruptStatement") ?? 0).toBeGreaterThan(0)
    expect(operations.get("interruptCommit") ?? 0).toBeGreaterThan(0)
    expect(deliveries).toBeGreaterThan(0)
  }, 300_000)
})

/** Index of the last command's step in the listener scenario (the closing probe follows it). */
const commands5Last = 4
