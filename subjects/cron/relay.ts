/**
 * One runner's relay over cron ticks (N6, N7, N8): claim with a lease, settle a tick that must not
 * fire, deliver with a receipt, and rewrite after the receipt. Every phase is one storage transaction,
 * and every settling write is fenced on the claim (`claimFence`).
 */
import { Clock, Effect } from "effect"
import { hookPoint } from "../../harness/HookPoints.ts"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ClaimedTick, CommandHandler, CronEntry, CronRelay, CronRelayOptions, TickDelivery } from "./api.ts"
import type { CronDialect } from "./dialect.ts"
import { readInteger } from "./dialect.ts"
import type { CronPieces } from "./pieces.ts"
import { OUTBOX_TABLE, RECEIPTS_TABLE } from "./schema.ts"
import { tickId } from "./ticks.ts"

/** Hook point reached first thing inside every relay transaction (optional; it only pauses). */
export const RELAY_BEGUN_HOOK = "cron.relayBegun"
/** Hook point reached when a relay transaction's writes are done, before it commits. */
export const RELAY_WRITTEN_HOOK = "cron.relayWritten"

/** One relay phase as one transaction, with the relay hook points at its start and before its commit. */
const phaseTransaction = <A, E, R>(sql: SqlClient.SqlClient, body: Effect.Effect<A, E, R>) =>
  sql.withTransaction(hookPoint(RELAY_BEGUN_HOOK).pipe(Effect.andThen(body), Effect.tap(() => hookPoint(RELAY_WRITTEN_HOOK))))

/** What a relay needs. */
export interface RelayContext {
  readonly sql: SqlClient.SqlClient
  readonly dialect: CronDialect
  readonly pieces: CronPieces
  readonly retryWindowMs: number
}

const toClaimedTick = (row: Record<string, unknown>): ClaimedTick => ({
  tenant_id: String(row.tenant_id),
  actor_type: String(row.actor_type),
  actor_id: String(row.actor_id),
  routing_key: String(readInteger(row.routing_key)),
  intent_id: String(row.intent_id),
  command: String(row.command),
  payload: String(row.payload),
  timer_key: row.timer_key === null ? null : String(row.timer_key),
  scheduled_at: String(readInteger(row.scheduled_at_ms)),
  claimed_until: String(readInteger(row.due_at_ms))
})

const byActorAndKey = (a: ClaimedTick, b: ClaimedTick): number =>
  a.actor_id < b.actor_id ? -1 : a.actor_id > b.actor_id ? 1 : (a.timer_key ?? "") < (b.timer_key ?? "") ? -1 : (a.timer_key ?? "") > (b.timer_key ?? "") ? 1 : 0

/** Builds one runner's relay. */
export const makeRelay = (context: RelayContext, options: CronRelayOptions): CronRelay => {
  const { sql, pieces } = context
  const entryOf = (tick: ClaimedTick): CronEntry | undefined =>
    options.schedules().get(tick.actor_type)?.entries.find((entry) => entry.key === tick.timer_key)

  const rewrite = (tick: ClaimedTick, entry: CronEntry) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const dueAt = entry.next(pieces.rewriteBaseMs(now, tick))
      const id = yield* tickId(pieces, now, dueAt, context.retryWindowMs)
      const payload = yield* entry.payload
      yield* sql`UPDATE ${sql.literal(OUTBOX_TABLE)} SET intent_id = ${id},
        command = ${entry.command}, payload = ${payload}, due_at_ms = ${dueAt},
        scheduled_at_ms = ${dueAt}, attempts = 0, last_error = NULL, ambiguous = false
        WHERE ${pieces.claimFence(sql, tick)}`
    })

  const claim = (limit: number) =>
    phaseTransaction(sql, Effect.gen(function*() {
      const types = pieces.claimableTypes([...options.schedules().keys()])
      if (types !== null && types.length === 0) return []
      const now = yield* Clock.currentTimeMillis
      const rows = yield* pieces.claimDue(sql, { dialect: context.dialect, types, nowMs: now, claimedUntilMs: now + options.leaseMs, limit })
      return rows.map(toClaimedTick).sort(byActorAndKey)
    }))

  const settleUnfired = (tick: ClaimedTick, backoffMs: number) =>
    phaseTransaction(sql, Effect.gen(function*() {
      const schedule = options.schedules().get(tick.actor_type)
      const entry = entryOf(tick)
      const now = yield* Clock.currentTimeMillis
      const stale = schedule !== undefined && pieces.isStale(now, tick, schedule.skipMs)
      if (entry === undefined) {
        if (stale) yield* sql`DELETE FROM ${sql.literal(OUTBOX_TABLE)} WHERE ${pieces.claimFence(sql, tick)}`
        else yield* sql`UPDATE ${sql.literal(OUTBOX_TABLE)} SET due_at_ms = ${now + backoffMs} WHERE ${pieces.claimFence(sql, tick)}`
        return undefined
      }
      if (stale) {
        yield* rewrite(tick, entry)
        return undefined
      }
      if (tick.command === entry.command) return { command: tick.command, payload: tick.payload } satisfies TickDelivery
      if (yield* pieces.firedBefore(sql, tick)) {
        yield* rewrite(tick, entry)
        return undefined
      }
      return { command: entry.command, payload: yield* entry.payload } satisfies TickDelivery
    }))

  const deliver = (tick: ClaimedTick, delivery: TickDelivery, handler: CommandHandler) =>
    phaseTransaction(sql, Effect.gen(function*() {
      const routingKey = readInteger(tick.routing_key)
      if (yield* pieces.receiptReplays(sql, tick, delivery.command)) return "replayed" as const
      yield* handler({
        ref: { tenant: tick.tenant_id, actor: tick.actor_type, id: tick.actor_id },
        commandId: tick.intent_id,
        timerKey: tick.timer_key,
        command: delivery.command,
        payload: delivery.payload
      })
      yield* sql`INSERT INTO ${sql.literal(RECEIPTS_TABLE)} (routing_key, tenant_id, actor_type, actor_id, command_id, command, outcome)
        VALUES (${routingKey}, ${tick.tenant_id}, ${tick.actor_type}, ${tick.actor_id}, ${tick.intent_id}, ${delivery.command}, 'ok')`
      return "fired" as const
    }))

  const settleFired = (tick: ClaimedTick): Effect.Effect<void, SqlError> =>
    phaseTransaction(sql, Effect.suspend(() => {
      const entry = entryOf(tick)
      return entry === undefined
        ? Effect.asVoid(sql`DELETE FROM ${sql.literal(OUTBOX_TABLE)} WHERE ${pieces.claimFence(sql, tick)}`)
        : rewrite(tick, entry)
    }))

  return { claim, settleUnfired, deliver, settleFired }
}
