/**
 * Every allowed variant of the cron runtime (`variants.ts`) passes every applicable cron requirement
 * at the gate's budget and seed, and each differs from the shipped runtime where that is cheap to
 * show. Every variant runs on sqlite; the one whose choice meets postgres-only SQL (the claim's
 * `FOR UPDATE SKIP LOCKED` subquery) also on pglite. Timeouts are three times the measured run
 * (2 shared cores), at least 30 s.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../../adapters/sqlite/index.ts"
import type { AllowedVariant } from "../../../harness/allowedVariant.ts"
import { virtualClockLayer } from "../../../harness/VirtualClock.ts"
import { cronSuite } from "../../../properties/cron/index.ts"
import { type CronImplementation, type CronRuntime, shippedCron } from "../../../subjects/cron/index.ts"
import { describeVariantsPass, type MeasuredSeconds } from "../../support/everyRequirementPasses.ts"
import { cronAllowedVariants } from "./variants.ts"

/** Measured seconds per variant on sqlite and, where it runs there, pglite. */
const MEASURED_S: Readonly<Record<string, MeasuredSeconds>> = {
  "claims-reversed": { sqlite: 11 },
  "claim-tie-breaks-reversed": { sqlite: 7, pglite: 45 },
  "ticks-written-in-reverse": { sqlite: 20 },
  "turn-skips-no-op-insert": { sqlite: 10 },
  "invalid-before-duplicate": { sqlite: 4 },
  "bootstrap-generation-row-last": { sqlite: 12 },
  "without-hook-points": { sqlite: 12 }
}

const variant = (name: string): AllowedVariant<CronImplementation> => cronAllowedVariants.find((each) => each.name === name)!

const ref = { tenant: "t", actor: "job", id: "a" }

/** Runs `body` on a fresh SQLite database with `implementation`'s runtime, under virtual time. */
const withRuntime = <A>(implementation: CronImplementation, body: (cron: CronRuntime, sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    const cron = yield* implementation.make({ sql: database.sql, dialect: "sqlite", retryWindowMs: 3_600_000 })
    return yield* body(cron, database.sql)
  })).pipe(Effect.provide(virtualClockLayer)) as Effect.Effect<A, unknown, never>)

describeVariantsPass("cron", cronAllowedVariants, cronSuite, MEASURED_S)

describe("allowed cron variants differ from the shipped runtime", () => {
  const entries = [
    { spec: "@every 60s", command: "a", payload: "{}" },
    { spec: "@every 120s", command: "b", payload: "{}" }
  ]

  it("claim-tie-breaks-reversed claims, of two ticks due at once, the later actor first", async () => {
    const firstClaimed = (implementation: CronImplementation) =>
      withRuntime(implementation, (cron) => Effect.gen(function*() {
        const schedule = yield* cron.defineSchedule({ skipMs: 600_000, entries: [entries[0]!] })
        yield* cron.bootstrapTicks(ref, schedule.entries)
        yield* cron.bootstrapTicks({ ...ref, id: "b" }, schedule.entries)
        yield* TestClock.adjust(60_000)
        const claimed = yield* cron.relay({ schedules: () => new Map([["job", schedule]]), leaseMs: 30_000 }).claim(1)
        return claimed.map((tick) => tick.actor_id)
      }))
    expect(await firstClaimed(shippedCron)).toEqual(["a"])
    expect(await firstClaimed(variant("claim-tie-breaks-reversed").implementation)).toEqual(["b"])
  })

  it("ticks-written-in-reverse inserts a turn's rows last entry first", async () => {
    const insertOrder = (implementation: CronImplementation) =>
      withRuntime(implementation, (cron, sql) => Effect.gen(function*() {
        const schedule = yield* cron.defineSchedule({ skipMs: 600_000, entries })
        yield* cron.runTurn(ref, schedule.entries, Effect.void)
        return (yield* sql<{ readonly command: string }>`SELECT command FROM actor_outbox ORDER BY rowid`).map((row) => row.command)
      }))
    expect(await insertOrder(shippedCron)).toEqual(["a", "b"])
    expect(await insertOrder(variant("ticks-written-in-reverse").implementation)).toEqual(["b", "a"])
  })

  it("invalid-before-duplicate refuses a declaration with a repeated key and a later invalid entry as invalid", async () => {
    const refusal = (implementation: CronImplementation) =>
      withRuntime(implementation, (cron) => Effect.map(Effect.flip(cron.defineSchedule({ skipMs: 60_000, entries: [
        { spec: "*/30 * * * *", command: "a", payload: "{}" },
        { spec: "0,30 * * * *", command: "b", payload: "{}" },
        { spec: "@every 500ms", command: "c", payload: "{}" }
      ] })), (error) => error._tag))
    expect(await refusal(shippedCron)).toBe("DuplicateCronKeyError")
    expect(await refusal(variant("invalid-before-duplicate").implementation)).toBe("InvalidCronEntryError")
  })
})
