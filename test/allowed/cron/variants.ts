/**
 * Allowed variants of the cron runtime: the shipped runtime with one choice changed that
 * `reference/cron.md` leaves to the implementation. Every cron suite must pass each of them
 * (`passes.test.ts`); a verdict that fails one checks something no rule requires.
 */
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { type AllowedVariant, buildAllowedVariant, wrappedAllowedVariant } from "../../../harness/allowedVariant.ts"
import type { ActorRef, CronEntry, CronImplementation, CronRuntime } from "../../../subjects/cron/api.ts"
import { CRON_PREFIX } from "../../../subjects/cron/api.ts"
import { shippedCron } from "../../../subjects/cron/index.ts"
import { type CronPieces, defaultCronPieces } from "../../../subjects/cron/pieces.ts"
import { GENERATIONS_TABLE, OUTBOX_TABLE, routingKeyOf } from "../../../subjects/cron/schema.ts"
import { cronPieceKit } from "../../known-bad/cron/kit.ts"
import { withoutHookPoints } from "../../support/withoutHookPoints.ts"

/** The shipped runtime with `change` applied to it (same tables, same errors). */
const wrapShipped = (reportName: string, change: (runtime: CronRuntime, sql: SqlClient.SqlClient) => CronRuntime): CronImplementation => ({
  name: reportName,
  make: (options) => Effect.map(shippedCron.make(options), (runtime) => change(runtime, options.sql))
})

/** A runtime whose relays return each claim's rows in reverse. */
export const reversedClaims = (runtime: CronRuntime): CronRuntime => ({
  ...runtime,
  relay: (relayOptions) => {
    const relay = runtime.relay(relayOptions)
    return { ...relay, claim: (limit) => Effect.map(relay.claim(limit), (ticks) => [...ticks].reverse()) }
  }
})

/** The claim statement with the tie-breaks between rows due at once reversed (actor, then key, descending). */
export const reversedTieBreakClaimDue: CronPieces["claimDue"] = (sql, request) => {
  const typeFilter = request.types === null ? sql`1 = 1` : sql`actor_type IN ${sql.in(request.types)}`
  return sql<Record<string, unknown>>`UPDATE ${sql.literal(OUTBOX_TABLE)} SET due_at_ms = ${request.claimedUntilMs}
    WHERE intent_id IN (SELECT intent_id FROM ${sql.literal(OUTBOX_TABLE)}
      WHERE timer_key LIKE ${`${CRON_PREFIX}%`} AND ${typeFilter} AND due_at_ms <= ${request.nowMs}
      ORDER BY due_at_ms, actor_id DESC, timer_key DESC LIMIT ${request.limit} ${sql.literal(request.dialect.claimLock)})
    RETURNING tenant_id, actor_type, actor_id, routing_key, intent_id, command, payload, timer_key, scheduled_at_ms, due_at_ms`
}

/** A runtime writing each turn's and bootstrap's tick rows in reverse entry order. */
export const reversedTickWrites = (runtime: CronRuntime): CronRuntime => ({
  ...runtime,
  writeTicks: (ref, entries, nowMs) => runtime.writeTicks(ref, [...entries].reverse(), nowMs),
  runTurn: (ref, entries, body) => runtime.runTurn(ref, [...entries].reverse(), body),
  bootstrapTicks: (ref, entries) => runtime.bootstrapTicks(ref, [...entries].reverse())
})

/** The entries of `ref` without a pending tick row, read in the caller's transaction. */
export const entriesWithoutTick = (sql: SqlClient.SqlClient, ref: ActorRef, entries: ReadonlyArray<CronEntry>): Effect.Effect<ReadonlyArray<CronEntry>, SqlError> =>
  entries.length === 0 ? Effect.succeed(entries) : Effect.map(
    sql<Record<string, unknown>>`SELECT timer_key FROM ${sql.literal(OUTBOX_TABLE)}
      WHERE routing_key = ${routingKeyOf(ref.tenant)} AND tenant_id = ${ref.tenant} AND actor_type = ${ref.actor} AND actor_id = ${ref.id}
        AND ${sql.in("timer_key", entries.map((entry) => entry.key))}`,
    (rows) => {
      const ticking = new Set(rows.map((row) => String(row["timer_key"])))
      return entries.filter((entry) => !ticking.has(entry.key))
    }
  )

/**
 * A runtime whose turns read which entries already tick and insert only the others (no insert at
 * all when every entry ticks); the insert stays insert-or-ignore for concurrent writers.
 */
export const missingOnlyTurnWrites = (runtime: CronRuntime, sql: SqlClient.SqlClient): CronRuntime => {
  const writeMissing = (ref: ActorRef, entries: ReadonlyArray<CronEntry>, nowMs: number) =>
    Effect.flatMap(entriesWithoutTick(sql, ref, entries), (missing) => runtime.writeTicks(ref, missing, nowMs))
  return {
    ...runtime,
    writeTicks: writeMissing,
    runTurn: (ref, entries, body) =>
      runtime.runTurn(ref, [], Effect.andThen(body, Effect.flatMap(Clock.currentTimeMillis, (nowMs) => writeMissing(ref, entries, nowMs))))
  }
}

/** A runtime whose declarations refuse the first invalid entry before any duplicate key. */
export const invalidBeforeDuplicate = (runtime: CronRuntime): CronRuntime => ({
  ...runtime,
  defineSchedule: (input) =>
    Effect.gen(function*() {
      for (const entry of input.entries) yield* runtime.defineSchedule({ skipMs: input.skipMs, entries: [entry] })
      return yield* runtime.defineSchedule(input)
    })
})

/**
 * A runtime whose bootstrap writes the ticks first and the singleton's generation row last, in the
 * same one transaction (the shipped one writes the generation row first).
 */
export const generationRowLastBootstrap = (runtime: CronRuntime, sql: SqlClient.SqlClient): CronRuntime => ({
  ...runtime,
  bootstrapTicks: (ref, entries) =>
    entries.length === 0 ? Effect.void : sql.withTransaction(Effect.gen(function*() {
      yield* hookPoint("cron.bootstrapBegun")
      yield* runtime.writeTicks(ref, entries, yield* Clock.currentTimeMillis)
      yield* sql`INSERT INTO ${sql.literal(GENERATIONS_TABLE)} (routing_key, tenant_id, actor_type, actor_id)
        VALUES (${routingKeyOf(ref.tenant)}, ${ref.tenant}, ${ref.actor}, ${ref.id}) ON CONFLICT DO NOTHING`
      yield* hookPoint("cron.bootstrapWritten")
    }))
})

/**
 * A delivery that replays any receipt of the tick's id, whatever command it was for (receipts keyed by
 * id alone): the same lookup as N7's `firedBefore`.
 */
export const receiptReplaysById: CronPieces["receiptReplays"] = (sql, tick) => defaultCronPieces.firedBefore(sql, tick)

/** A runtime with no hook point reached by any operation (the production default). */
export const hooklessRuntime = (runtime: CronRuntime): CronRuntime => ({
  ...runtime,
  writeTicks: (ref, entries, nowMs) => withoutHookPoints(runtime.writeTicks(ref, entries, nowMs)),
  runTurn: (ref, entries, body) => withoutHookPoints(runtime.runTurn(ref, entries, body)),
  bootstrapTicks: (ref, entries) => withoutHookPoints(runtime.bootstrapTicks(ref, entries)),
  relay: (relayOptions) => {
    const relay = runtime.relay(relayOptions)
    return {
      claim: (limit) => withoutHookPoints(relay.claim(limit)),
      settleUnfired: (tick, backoffMs) => withoutHookPoints(relay.settleUnfired(tick, backoffMs)),
      deliver: (tick, delivery, handler) => withoutHookPoints(relay.deliver(tick, delivery, handler)),
      settleFired: (tick) => withoutHookPoints(relay.settleFired(tick))
    }
  }
})

/** The allowed variants of the cron runtime. */
export const cronAllowedVariants: ReadonlyArray<AllowedVariant<CronImplementation>> = [
  wrappedAllowedVariant({
    name: "claims-reversed",
    freedom: "N6 fixes which rows a claim takes, not the order it returns them in (a RETURNING list has none)"
  }, (reportName) => wrapShipped(reportName, reversedClaims)),
  buildAllowedVariant(cronPieceKit, {
    name: "claim-tie-breaks-reversed",
    freedom: "N6 fixes which rows are claimable (due $cron: rows of declared types), not the order a limited claim prefers among rows due at once",
    pieces: { claimDue: reversedTieBreakClaimDue }
  }),
  wrappedAllowedVariant({
    name: "ticks-written-in-reverse",
    freedom: "N4 and N5 fix one row per entry, insert-or-ignore, in the turn's or bootstrap's transaction, not the order of the rows within it"
  }, (reportName) => wrapShipped(reportName, reversedTickWrites)),
  wrappedAllowedVariant({
    name: "turn-skips-no-op-insert",
    freedom: "N4 makes an entry that already ticks a no-op; whether the no-op insert is sent, or the turn reads first and skips it, is left open"
  }, (reportName) => wrapShipped(reportName, missingOnlyTurnWrites)),
  wrappedAllowedVariant({
    name: "invalid-before-duplicate",
    freedom: "N1 makes an invalid entry and a repeated key errors but fixes no priority when a declaration has both"
  }, (reportName) => wrapShipped(reportName, (runtime) => invalidBeforeDuplicate(runtime))),
  wrappedAllowedVariant({
    name: "bootstrap-generation-row-last",
    freedom: "N5 fixes one transaction for a singleton's bootstrap writes and one row per entry, not the order of its statements"
  }, (reportName) => wrapShipped(reportName, generationRowLastBootstrap)),
  buildAllowedVariant(cronPieceKit, {
    name: "receipts-keyed-by-id",
    freedom: "the Rows section replays a receipt for a redelivery of the same command id and I2 delivers an instant at most once, while B1 presumes a changed command under an old id runs: which of the two keys a receipt is left open (models/cron/receiptReadings.ts)",
    pieces: { receiptReplays: receiptReplaysById }
  }),
  wrappedAllowedVariant({
    name: "without-hook-points",
    freedom: "hook points are optional refinements (DESIGN.md: an implementation faithful to upstream, without our hook points, must pass)"
  }, (reportName) => wrapShipped(reportName, hooklessRuntime))
]
