/**
 * The shipped cron runtime on SQLite, directly through its public API (`subjects/cron/api.ts`): the
 * persisted layout keeps upstream's names, `writeTicks` is insert-or-ignore on the timer-key index,
 * a rejected turn writes nothing, declarations refuse invalid entries and equivalent spellings, tick
 * ids have upstream's shape, and a relay claims, delivers with a receipt and rewrites in place.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { virtualClockLayer, VIRTUAL_EPOCH_MS } from "../../harness/VirtualClock.ts"
import { type CronRuntime, shippedCron } from "../../subjects/cron/index.ts"

const ref = { tenant: "t", actor: "job", id: "a" }

/** Runs `body` on a fresh SQLite database with the shipped runtime, under virtual time. */
const withRuntime = <A>(body: (cron: CronRuntime, sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    const cron = yield* shippedCron.make({ sql: database.sql, dialect: "sqlite", retryWindowMs: 3_600_000 })
    return yield* body(cron, database.sql)
  })).pipe(Effect.provide(virtualClockLayer)) as Effect.Effect<A, unknown, never>)

const rowsOf = (sql: SqlClient.SqlClient) =>
  sql<{ readonly intent_id: string; readonly timer_key: string; readonly due_at_ms: number; readonly command: string }>`
    SELECT intent_id, timer_key, due_at_ms, command FROM actor_outbox ORDER BY timer_key`

describe("cron runtime (sqlite)", () => {
  it("declares entries with canonical keys and refuses invalid entries and equivalent spellings", async () => {
    await withRuntime((cron) => Effect.gen(function*() {
      const schedule = yield* cron.defineSchedule({ skipMs: 60_000, entries: [
        { spec: "0,30 1-2 * * *", zone: "america/new_york", command: "ping", payload: "{}" },
        { spec: "@every 1m", command: "ping", payload: "{}" }
      ] })
      expect(schedule.entries.map((entry) => entry.key)).toEqual(["$cron:America/New_York 0,30 1-2 * * *", "$cron:@every 60000ms"])
      const duplicate = yield* Effect.flip(cron.defineSchedule({ skipMs: 60_000, entries: [
        { spec: "*/30 * * * *", command: "a", payload: "{}" },
        { spec: "0,30 * * * *", command: "b", payload: "{}" }
      ] }))
      expect(duplicate._tag).toBe("DuplicateCronKeyError")
      // Every day matches when a day field is restricted to every value: one schedule, one key (N1).
      for (const everyDay of ["0 * 1-31 * *", "0 * * * 0-6", "0 * 1-31 * MON"]) {
        const twice = yield* Effect.flip(cron.defineSchedule({ skipMs: 60_000, entries: [
          { spec: "0 * * * *", command: "a", payload: "{}" },
          { spec: everyDay, command: "b", payload: "{}" }
        ] }))
        expect(twice._tag).toBe("DuplicateCronKeyError")
      }
      const invalid = yield* Effect.flip(cron.defineSchedule({ skipMs: 60_000, entries: [{ spec: "@every 500ms", command: "a", payload: "{}" }] }))
      expect(invalid._tag).toBe("InvalidCronEntryError")
    }))
  })

  it("writes one row per entry at next(now), insert-or-ignore, and nothing for a rejected turn", async () => {
    await withRuntime((cron, sql) => Effect.gen(function*() {
      const schedule = yield* cron.defineSchedule({ skipMs: 60_000, entries: [{ spec: "@every 90s", command: "ping", payload: "{}" }] })
      yield* Effect.flip(cron.runTurn({ ...ref, id: "b" }, schedule.entries, Effect.fail("rejected")))
      expect(yield* rowsOf(sql)).toEqual([])
      yield* cron.bootstrapTicks(ref, schedule.entries)
      const [first] = yield* rowsOf(sql)
      expect(first!.due_at_ms).toBe(Math.floor(VIRTUAL_EPOCH_MS / 90_000 + 1) * 90_000)
      expect(first!.intent_id).toMatch(new RegExp(`^v1\\.${VIRTUAL_EPOCH_MS}\\.${first!.due_at_ms + 3_600_000}\\.[0-9a-f-]{36}$`))
      yield* TestClock.adjust(1_000)
      yield* cron.bootstrapTicks(ref, schedule.entries)
      expect(yield* rowsOf(sql)).toEqual([first])
    }))
  })

  it("claims a due tick, delivers it once with a receipt and rewrites the row in place", async () => {
    await withRuntime((cron, sql) => Effect.gen(function*() {
      const schedule = yield* cron.defineSchedule({ skipMs: 600_000, entries: [{ spec: "@every 60s", command: "ping", payload: "{}" }] })
      yield* cron.bootstrapTicks(ref, schedule.entries)
      const relay = cron.relay({ schedules: () => new Map([["job", schedule]]), leaseMs: 30_000 })
      yield* TestClock.adjust(60_000)
      const [tick] = yield* relay.claim(16)
      expect(tick!.claimed_until).toBe(String(VIRTUAL_EPOCH_MS + 60_000 + 30_000))
      const delivery = yield* relay.settleUnfired(tick!, 10_000)
      expect(delivery).toEqual({ command: "ping", payload: "{}" })
      const handled: Array<string> = []
      const handler = (command: { readonly commandId: string }) => Effect.sync(() => void handled.push(command.commandId))
      expect(yield* relay.deliver(tick!, delivery!, handler)).toBe("fired")
      expect(yield* relay.deliver(tick!, delivery!, handler)).toBe("replayed")
      expect(handled).toEqual([tick!.intent_id])
      yield* relay.settleFired(tick!)
      const [row] = yield* rowsOf(sql)
      expect(row!.intent_id).not.toBe(tick!.intent_id)
      expect(row!.due_at_ms).toBe(VIRTUAL_EPOCH_MS + 120_000)
      // A second settle of the same claim is fenced out: the row is unchanged.
      yield* relay.settleFired(tick!)
      expect(yield* rowsOf(sql)).toEqual([row])
    }))
  })
})
