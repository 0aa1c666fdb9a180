/**
 * "Their" cron runtime: akter's `policy.cron` ticks written independently from the rules (N1-N8) and the
 * upstream surface, over effect/sql (SQLite and Postgres) with croner for parsing five-field specs.
 */
import { Effect } from "effect"
import type { CronImplementation, CronMakeOptions, CronRuntime } from "../../subjects/cron/api.ts"
import { makeRelay } from "./relay.ts"
import { defineSchedule } from "./schedule.ts"
import { createTables } from "./tables.ts"
import { bootstrapTicks, runTurn, writeTicks } from "./ticks.ts"

/** Builds the runtime over one database, creating its tables when missing. */
export const makeTheirCron = (options: CronMakeOptions): ReturnType<CronImplementation["make"]> =>
  Effect.gen(function*() {
    const { sql, dialect, retryWindowMs } = options
    yield* createTables(sql, dialect)
    const runtime: CronRuntime = {
      defineSchedule,
      writeTicks: (ref, entries, nowMs) => writeTicks(sql, retryWindowMs, ref, entries, nowMs),
      runTurn: (ref, entries, body) => runTurn(sql, retryWindowMs, ref, entries, body),
      bootstrapTicks: (ref, entries) => bootstrapTicks(sql, retryWindowMs, ref, entries),
      relay: (relayOptions) => makeRelay({ sql, dialect, retryWindowMs }, relayOptions)
    }
    return runtime
  })

/** The implementation as the suite binds it. */
export const theirCron: CronImplementation = { name: "third-party-cron", make: makeTheirCron }
