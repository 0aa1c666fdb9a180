/**
 * Every clocks suite passes every allowed variant of the clocks engine (`variants.ts`) at the gate's
 * budget, and each variant really makes another choice than the shipped engine.
 *
 * Every variant runs on sqlite (2-4 s each on an idle machine, up to 27 s when the 2 cores are
 * shared). Three run on pglite too (25-90 s, up to 170 s shared): the two store orders, whose SQL
 * (`ORDER BY ... DESC`) the dialect executes, and the effect records in the journal's own
 * transaction, whose refused write surfaces through the journal's postgres path. The others change no
 * SQL a dialect reads differently, so pglite would repeat sqlite's verdict at ten times the cost. The
 * file ran in 3 min 3 s (2026-12-04, load 5).
 */
import BetterSqlite3 from "better-sqlite3"
import { Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { pgliteAdapter } from "../../../adapters/pglite/index.ts"
import { makeSqliteClient, sqliteAdapter } from "../../../adapters/sqlite/index.ts"
import { handingLogger, withLogsTo } from "../../../harness/LogRecorder.ts"
import { clocksSuite } from "../../../properties/clocks/index.ts"
import type { Journal, JournalInput } from "../../../subjects/clocks/api.ts"
import { JournalError } from "../../../subjects/clocks/api.ts"
import { clocksDialect } from "../../../subjects/clocks/dialect.ts"
import type { PieceRuntime } from "../../../subjects/clocks/pieces.ts"
import { defaultFireRetryPolicy } from "../../../subjects/clocks/pieces.ts"
import { ensureClocksTables } from "../../../subjects/clocks/schema.ts"
import { type ClockRow, type ClockStore, type DeferredRow, makeClockStore } from "../../../subjects/clocks/store.ts"
import { expectEveryRequirementPasses } from "../../support/everyRequirementPasses.ts"
import { descendingOrderSql, descendingOrderText } from "./descendingOrderSql.ts"
import {
  CLOCK_ORDER_COLUMNS,
  clocksAllowedVariants,
  COMPLETION_ORDER_COLUMNS,
  errorLoggedFlushLossy,
  ownTransactionEffectBoundary,
  pairReversingRetryFire,
  readFirstCompleteClock,
  readFirstCompleteDeferredRow,
  reversedSweepWakes,
  unreadInsertedStoreClock
} from "./variants.ts"

/** Variants also run on pglite (see the header). */
const ON_PGLITE = new Set(["pending-clocks-descending", "completions-descending", "effect-records-own-transaction"])
/** Three times the slowest measured run of one variant on sqlite (27 s). */
const SQLITE_TIMEOUT_MS = 90_000
/** Three times the slowest measured run of one variant on both adapters (27 s + 115 s). */
const BOTH_TIMEOUT_MS = 430_000

describe("clocks: every allowed variant passes every applicable requirement", () => {
  for (const variant of clocksAllowedVariants) {
    const both = ON_PGLITE.has(variant.name)
    it(`${variant.name} (${variant.freedom})`, async () => {
      await expectEveryRequirementPasses(clocksSuite(variant.implementation), both ? [sqliteAdapter, pgliteAdapter] : [sqliteAdapter])
    }, both ? BOTH_TIMEOUT_MS : SQLITE_TIMEOUT_MS)
  }
})

const address = { flowName: "flow", executionId: "e1" }
const clockRow = (clockName: string, completedAtMs: number | null = null): ClockRow => ({ ...address, clockName, deferredName: `${clockName}:fired`, dueAtMs: 5, completedAtMs })
const deferredRow = (deferredName: string): DeferredRow => ({ ...address, deferredName, exit: { _tag: "Success", value: 1 }, metadata: null, completedAtMs: 1, consumedAtMs: null })

/** A store answering `answers` and listing the statements called, in order. */
const recordingStore = (answers: Partial<Record<keyof ClockStore, unknown>>) => {
  const calls: Array<string> = []
  const store = new Proxy({}, {
    get: (_target, statement: string) => () => {
      calls.push(statement)
      return Effect.succeed(answers[statement as keyof ClockStore])
    }
  }) as ClockStore
  return { store, calls }
}

describe("clocks: each allowed variant makes another choice than the shipped engine", () => {
  it("the descending store sends its ORDER BY descending and reads pending clocks and completions in descending key order", async () => {
    expect(descendingOrderText("WHERE x ORDER BY flow_name, execution_id, clock_name", CLOCK_ORDER_COLUMNS))
      .toBe("WHERE x ORDER BY flow_name DESC, execution_id DESC, clock_name DESC")
    const db = new BetterSqlite3(":memory:")
    const [clocks, completions] = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* makeSqliteClient(db)
      yield* ensureClocksTables(sql, clocksDialect("sqlite"))
      const shipped = makeClockStore(sql)
      for (const name of ["a", "b", "c"]) {
        yield* shipped.insertClockIfAbsent(clockRow(name), "p")
        yield* shipped.insertDeferredIfAbsent(deferredRow(name))
      }
      const byClock = makeClockStore(descendingOrderSql(sql, CLOCK_ORDER_COLUMNS))
      const byCompletion = makeClockStore(descendingOrderSql(sql, COMPLETION_ORDER_COLUMNS))
      return [yield* byClock.pendingClocks(undefined), yield* byCompletion.completedDeferreds("flow")] as const
    }))
    db.close()
    expect(clocks.map((row) => row.clockName)).toEqual(["c", "b", "a"])
    expect(completions.map((row) => row.deferredName)).toEqual(["c", "b", "a"])
  })

  it("the sweep's wakes are reversed", () => {
    expect(reversedSweepWakes([deferredRow("a"), deferredRow("b")]).map((row) => row.deferredName)).toEqual(["b", "a"])
  })

  it("a completion already stored gets no INSERT", async () => {
    const { store, calls } = recordingStore({ deferred: deferredRow("a") })
    const completion = await Effect.runPromise(readFirstCompleteDeferredRow(store, deferredRow("a")))
    expect(completion._tag).toBe("Existing")
    expect(calls).toEqual(["deferred"])
  })

  it("a clock this call inserted is not read back", async () => {
    const { store, calls } = recordingStore({ insertClockIfAbsent: true })
    expect(await Effect.runPromise(unreadInsertedStoreClock(store, clockRow("a"), "p"))).toEqual(clockRow("a"))
    expect(calls).toEqual(["insertClockIfAbsent"])
  })

  it("a completed clock gets no UPDATE", async () => {
    const { store, calls } = recordingStore({ clock: clockRow("a", 3) })
    expect(await Effect.runPromise(readFirstCompleteClock(store, clockRow("a"), 7))).toBe(false)
    expect(calls).toEqual(["clock"])
  })

  it("a failed lossy flush is logged at Error", async () => {
    const levels: Array<string> = []
    const journal = { flush: Effect.fail(new JournalError({ reason: "sink_failed", message: "latched" })) } as unknown as Journal
    await Effect.runPromise(withLogsTo(errorLoggedFlushLossy(journal), handingLogger((entry) => levels.push(entry.level))))
    expect(levels).toEqual(["Error"])
  })

  it("the effect-boundary records are emitted with no transaction of the engine's", async () => {
    const emitted: Array<string> = []
    const runtime = {
      sql: { withTransaction: () => Effect.die(new Error("no transaction of the engine's")) },
      emit: (input: JournalInput) => Effect.sync(() => void emitted.push(input.sourceId))
    } as unknown as PieceRuntime
    const descriptor = { id: "r:k:1", kind: "charge", tier: "irreversible", runId: "r", lineageId: "r", sourceId: "engine", attempt: 1 } as const
    expect(await Effect.runPromise(ownTransactionEffectBoundary(runtime, descriptor, Effect.succeed(1)))).toBe(1)
    expect(emitted).toEqual(["engine:effect:r:k:1:intended", "engine:effect:r:k:1:succeeded"])
  })

  it("of two fires started at once, the later-armed runs first", async () => {
    const order = await Effect.runPromise(Effect.gen(function*() {
      const started: Array<string> = []
      const retryFire = pairReversingRetryFire()
      const fires = ["first-armed", "second-armed"].map((name) => retryFire(Effect.sync(() => void started.push(name)), defaultFireRetryPolicy))
      const fibers = yield* Effect.forEach(fires, (fire) => Effect.forkChild(fire))
      yield* Effect.forEach(fibers, Fiber.join)
      return started
    }))
    expect(order).toEqual(["second-armed", "first-armed"])
  })
})
