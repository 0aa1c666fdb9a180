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
import type { Json } from "../../../harness/Property.ts"
import { executeScenario } from "../../../harness/Runner.ts"
import { virtualClockLayer } from "../../../harness/VirtualClock.ts"
import { cronSuite } from "../../../properties/cron/index.ts"
import { type CronImplementation, type CronRuntime, shippedCron } from "../../../subjects/cron/index.ts"
import { describeVariantsPass, type MeasuredSeconds } from "../../support/everyRequirementPasses.ts"
import { cronAllowedVariants } from "./variants.ts"
import { propertyById } from "../../../harness/Suite.ts"

/** Measured seconds per variant on sqlite and, where it runs there, pglite. */
const MEASURED_S: Readonly<Record<string, MeasuredSeconds>> = {
  "claims-reversed": { sqlite: 11 },
  "claim-tie-breaks-reversed": { sqlite: 7, pglite: 45 },
  "ticks-written-in-reverse": { sqlite: 20 },
  "turn-skips-no-op-insert": { sqlite: 10 },
  "invalid-before-duplicate": { sqlite: 4 },
  "bootstrap-generation-row-last": { sqlite: 12 },
  "receipts-keyed-by-id": { sqlite: 10 },
  "without-hook-points": { sqlite: 12 }
}

/** A scenario in which a delivery finds a receipt of its id for another command (found by an independent implementation). */
const RECEIPT_DISAGREEMENT: Json = {
  anchor: 4,
  skipMs: 600_000,
  pool: [{ command: "ping", payload: "{\"spec\":\"0,30 1 15,1 3-4,10-11 MON\"}", spec: "0,30 1 15,1 3-4,10-11 MON", zone: "Australia/Lord_Howe" }],
  probesMs: [0],
  commands: [
    { op: "declare", runner: 0, entries: [{ command: "pong", index: 0 }] },
    { op: "declare", runner: 1, entries: [{ command: "ping", index: 0 }] },
    { op: "bootstrapAll", order: [1, 0] },
    { op: "advanceToDue" },
    { op: "race", ops: [{ op: "claim", runner: 0 }, { op: "claim", runner: 1 }], order: [0, 1] },
    { op: "race", ops: [{ op: "settle", runner: 0 }, { op: "settle", runner: 1 }], order: [0, 1] },
    { op: "race", ops: [{ op: "settle", runner: 0 }, { op: "settle", runner: 1 }], order: [0, 1] },
    { op: "advanceToDue" },
    { op: "claim", runner: 0 },
    { op: "advance", ms: 31_000 },
    { op: "race", ops: [{ op: "claim", runner: 1 }, { op: "settle", runner: 0 }], order: [0, 1] },
    { op: "race", ops: [{ op: "settle", runner: 0 }, { op: "settle", runner: 1 }], order: [0, 1] },
    { op: "race", ops: [{ op: "settle", runner: 0 }, { op: "settle", runner: 1 }], order: [0, 1] }
  ],
  crashes: [], datedProbes: [], deliveryCrashes: [], failedStatements: [], foreignRows: false, lateClaims: [], ownTurns: false,
  redeploysBeforeRewrite: [], refusedCommits: [], respelledDeclarations: [], specProbes: [],
  turnEpisodes: [{ actorId: "b", rejected: false, runner: 0, turnMs: 0 }]
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

  it("receipts-keyed-by-id replays where the shipped runtime runs the row's own command again, and both agree with the model", async () => {
    // Two runners declare different commands for one entry (a deploy in progress). Runner 0 delivers
    // its retargeted command under tick #1; its lease passes before its rewrite, runner 1 claims #1,
    // whose row still holds runner 1's command, and delivers it under the same id.
    const deliveries = async (implementation: CronImplementation) => {
      const model = propertyById(cronSuite(implementation), "cron/model")
      const trace = await Effect.runPromise(executeScenario(model, makeSqliteAdapter(), RECEIPT_DISAGREEMENT))
      expect(trace.divergence).toBeNull()
      const last = trace.steps.at(-1)!.implementationState as { readonly fired: ReadonlyArray<{ readonly commandId: string; readonly actorId: string; readonly command: string }> }
      return last.fired.map((entry) => `${entry.actorId} ${entry.commandId} ${entry.command}`)
    }
    // Tick #1 of actor a: the shipped runtime runs runner 0's "pong", then runner 1's "ping" under the same id.
    expect(await deliveries(shippedCron)).toEqual(["a #1 pong", "b #2 pong", "a #1 ping"])
    expect(await deliveries(variant("receipts-keyed-by-id").implementation)).toEqual(["a #1 pong", "b #2 pong"])
  }, 30_000)

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
