/**
 * The cron runtime skeleton: `makeCronRuntime(pieces)` builds a `CronImplementation.make` from the
 * named pieces (pieces.ts); the shipped implementation uses the defaults.
 */
import { Clock, Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { type CronEntry, type CronMakeOptions, type CronRuntime, type CronSchedule, type CronScheduleInput, DuplicateCronKeyError, InvalidCronEntryError } from "./api.ts"
import { cronDialect } from "./dialect.ts"
import type { CronPieces } from "./pieces.ts"
import { makeRelay } from "./relay.ts"
import { RECEIPTS_TABLE } from "./schema.ts"
import { parseSpec } from "./spec.ts"
import { bootstrapTicks, type TickWriterContext, writeTicks } from "./ticks.ts"

/** Hook points the shipped runtime offers (optional refinements; only pauses). */
export const CRON_HOOK_POINTS: ReadonlyArray<string> = ["cron.bootstrapBegun", "cron.bootstrapWritten", "cron.relayBegun", "cron.relayWritten"]

/** Declares a schedule: every entry parsed and keyed, in order; the first invalid or repeated key fails (N1). */
const defineSchedule = (pieces: CronPieces) => (input: CronScheduleInput): Effect.Effect<CronSchedule, InvalidCronEntryError | DuplicateCronKeyError> =>
  Effect.gen(function*() {
    const entries: Array<CronEntry> = []
    for (const declared of input.entries) {
      const zone = declared.zone ?? null
      const parsed = yield* Effect.try({
        try: () => parseSpec(declared.spec, zone),
        catch: (cause) => new InvalidCronEntryError({ spec: declared.spec, zone, reason: cause instanceof Error ? cause.message : String(cause) })
      })
      const key = pieces.timerKeyOf(parsed, declared.spec, zone)
      if (entries.some((entry) => entry.key === key)) return yield* new DuplicateCronKeyError({ key })
      entries.push({
        key,
        command: declared.command,
        payload: Effect.succeed(declared.payload),
        next: (afterMs) => pieces.nextInstant(parsed, afterMs)
      })
    }
    return { skipMs: input.skipMs, entries }
  })

/**
 * Builds `make` of a cron implementation from `pieces`: creates the tables when missing and returns
 * the runtime.
 *
 * @example const make = makeCronRuntime(defaultCronPieces)
 */
export const makeCronRuntime = (pieces: CronPieces) => (options: CronMakeOptions): Effect.Effect<CronRuntime, SqlError> =>
  Effect.gen(function*() {
    const { sql } = options
    // One cheap probe first: the tables exist once any runtime over this database was built.
    const exists = yield* Effect.exit(sql.unsafe(`SELECT 1 FROM ${RECEIPTS_TABLE} LIMIT 1`))
    if (exists._tag === "Failure") for (const statement of pieces.schemaStatements) yield* sql.unsafe(statement)
    const context: TickWriterContext = { sql, pieces, retryWindowMs: options.retryWindowMs }
    const dialect = cronDialect(options.dialect)
    return {
      defineSchedule: defineSchedule(pieces),
      writeTicks: (ref, entries, nowMs) => writeTicks(context, ref, entries, nowMs),
      runTurn: (ref, entries, body) =>
        Effect.gen(function*() {
          const admittedAtMs = yield* Clock.currentTimeMillis
          yield* sql.withTransaction(Effect.gen(function*() {
            yield* body
            const writtenAtMs = yield* Clock.currentTimeMillis
            yield* writeTicks(context, ref, entries, pieces.turnTickTimeMs(admittedAtMs, writtenAtMs))
          }))
        }),
      bootstrapTicks: (ref, entries) => bootstrapTicks(context, ref, entries),
      relay: (relayOptions) => makeRelay({ sql, dialect, pieces, retryWindowMs: options.retryWindowMs }, relayOptions)
    }
  })
