/**
 * One runner's relay over `$cron:` rows: claiming with a lease (N6), the decisions before delivery (N7,
 * upstream `settleUnfired`), delivery under receipts, and the rewrite after the receipt (N8, upstream
 * `settleFired`). Every phase is one transaction; every settling write is fenced on the claim.
 */
import { Clock, Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"
import {
  CRON_PREFIX,
  type ClaimedTick,
  type CommandHandler,
  type CronEntry,
  type CronRelay,
  type CronRelayOptions,
  type DeliveryOutcome,
  type TickDelivery
} from "../../subjects/cron/api.ts"
import { falseLiteral } from "./tables.ts"
import { tickId } from "./ticks.ts"

/** What a relay needs besides its options. */
export interface RelayDeps {
  readonly sql: SqlClient.SqlClient
  readonly dialect: Dialect
  readonly retryWindowMs: number
}

const claimColumns = `CAST(routing_key AS TEXT) AS routing_key, tenant_id, actor_type, actor_id, intent_id,
  command, payload, timer_key, CAST(scheduled_at_ms AS TEXT) AS scheduled_at, CAST(due_at_ms AS TEXT) AS claimed_until`

/** Claims up to `limit` due `$cron:` rows of the declared actor types until now + lease (N6). */
const claimDue = (deps: RelayDeps, options: CronRelayOptions, limit: number): Effect.Effect<ReadonlyArray<ClaimedTick>, SqlError> =>
  Effect.gen(function*() {
    const { sql, dialect } = deps
    const actorTypes = [...options.schedules().keys()]
    if (actorTypes.length === 0 || limit <= 0) return []
    const nowMs = yield* Clock.currentTimeMillis
    const untilMs = nowMs + options.leaseMs
    const lock = sql.literal(dialect === "postgres" ? "FOR UPDATE SKIP LOCKED" : "")
    const rows = yield* sql<ClaimedTick>`UPDATE actor_outbox SET due_at_ms = ${untilMs}
      WHERE due_at_ms <= ${nowMs} AND intent_id IN (
        SELECT intent_id FROM actor_outbox
        WHERE timer_key IS NOT NULL AND substr(timer_key, 1, ${CRON_PREFIX.length}) = ${CRON_PREFIX}
          AND ${sql.in("actor_type", actorTypes)} AND due_at_ms <= ${nowMs}
        ORDER BY due_at_ms, intent_id LIMIT ${limit} ${lock})
      RETURNING ${sql.literal(claimColumns)}`
    return rows
  })

/** The entry a tick belongs to in this runner's declared schedules, if any. */
const entryOf = (options: CronRelayOptions, tick: ClaimedTick): CronEntry | undefined =>
  options.schedules().get(tick.actor_type)?.entries.find((entry) => entry.key === tick.timer_key)

/** The claim fence of every settling write (N8). */
const fenceOf = (sql: SqlClient.SqlClient, tick: ClaimedTick): Statement.Fragment =>
  sql`intent_id = ${tick.intent_id} AND due_at_ms = ${Number(tick.claimed_until)}`

/** Rewrites a tick's row in place to the entry's next tick, fenced on the claim (N8); `ambiguous` back to its default (false). */
const rewrite = (deps: RelayDeps, tick: ClaimedTick, entry: CronEntry): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    const { sql } = deps
    const nowMs = yield* Clock.currentTimeMillis
    const dueAtMs = entry.next(nowMs)
    const id = yield* tickId(nowMs, dueAtMs, deps.retryWindowMs)
    const payload = yield* entry.payload
    yield* sql`UPDATE actor_outbox SET intent_id = ${id}, command = ${entry.command}, payload = ${payload},
      due_at_ms = ${dueAtMs}, scheduled_at_ms = ${dueAtMs}, attempts = 0, last_error = NULL,
      ambiguous = ${sql.literal(deps.dialect === "postgres" ? "DEFAULT" : falseLiteral(deps.dialect))}
      WHERE ${fenceOf(sql, tick)}`
  })

const actorOf = (sql: SqlClient.SqlClient, tick: ClaimedTick): Statement.Fragment =>
  sql`routing_key = ${Number(tick.routing_key)} AND tenant_id = ${tick.tenant_id}
    AND actor_type = ${tick.actor_type} AND actor_id = ${tick.actor_id}`

/** Whether any receipt exists for the tick's id (whatever command it recorded). */
const receiptExists = (sql: SqlClient.SqlClient, tick: ClaimedTick): Effect.Effect<boolean, SqlError> =>
  Effect.map(
    sql`SELECT 1 AS found FROM actor_receipts WHERE ${actorOf(sql, tick)} AND command_id = ${tick.intent_id}`,
    (rows) => rows.length > 0
  )

/**
 * Settles a tick that must not fire and returns undefined, or returns what to deliver on this claim (N7):
 * undeclared entry -> delete when stale, else release with backoff; stale -> rewrite; same command ->
 * deliver; retargeted -> rewrite when a receipt of the id exists, else deliver the current command.
 */
const settleUnfired = (
  deps: RelayDeps,
  options: CronRelayOptions,
  tick: ClaimedTick,
  backoffMs: number
): Effect.Effect<TickDelivery | undefined, SqlError> =>
  Effect.gen(function*() {
    const { sql } = deps
    const schedule = options.schedules().get(tick.actor_type)
    const entry = entryOf(options, tick)
    const nowMs = yield* Clock.currentTimeMillis
    const stale = schedule !== undefined && nowMs - Number(tick.scheduled_at) > schedule.skipMs
    if (entry === undefined) {
      if (stale) yield* sql`DELETE FROM actor_outbox WHERE ${fenceOf(sql, tick)}`
      else yield* sql`UPDATE actor_outbox SET due_at_ms = ${nowMs + backoffMs} WHERE ${fenceOf(sql, tick)}`
      return undefined
    }
    if (stale) {
      yield* rewrite(deps, tick, entry)
      return undefined
    }
    if (tick.command === entry.command) return { command: tick.command, payload: tick.payload }
    if (yield* receiptExists(sql, tick)) {
      yield* rewrite(deps, tick, entry)
      return undefined
    }
    return { command: entry.command, payload: yield* entry.payload }
  })

/**
 * Delivers under the tick's id: a receipt of the id replays (redelivery never runs the handler again);
 * otherwise the handler runs in this transaction and its receipt commits with it.
 */
const deliver = (
  deps: RelayDeps,
  tick: ClaimedTick,
  delivery: TickDelivery,
  handler: CommandHandler
): Effect.Effect<DeliveryOutcome, SqlError> =>
  Effect.gen(function*() {
    const { sql } = deps
    if (yield* receiptExists(sql, tick)) return "replayed" as const
    yield* handler({
      ref: { tenant: tick.tenant_id, actor: tick.actor_type, id: tick.actor_id },
      commandId: tick.intent_id,
      timerKey: tick.timer_key,
      command: delivery.command,
      payload: delivery.payload
    })
    const nowMs = yield* Clock.currentTimeMillis
    yield* sql`INSERT INTO actor_receipts
      (routing_key, tenant_id, actor_type, actor_id, command_id, command, outcome, committed_at_ms)
      VALUES (${Number(tick.routing_key)}, ${tick.tenant_id}, ${tick.actor_type}, ${tick.actor_id},
        ${tick.intent_id}, ${delivery.command}, ${"ok"}, ${nowMs})`
    return "fired" as const
  })

/** Replaces a delivered tick's row with the entry's next tick, or deletes it when the entry is gone (N8). */
const settleFired = (deps: RelayDeps, options: CronRelayOptions, tick: ClaimedTick): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    const entry = entryOf(options, tick)
    if (entry === undefined) yield* deps.sql`DELETE FROM actor_outbox WHERE ${fenceOf(deps.sql, tick)}`
    else yield* rewrite(deps, tick, entry)
  })

/** A relay for one runner: each phase in its own transaction. */
export const makeRelay = (deps: RelayDeps, options: CronRelayOptions): CronRelay => ({
  claim: (limit) => deps.sql.withTransaction(claimDue(deps, options, limit)),
  settleUnfired: (tick, backoffMs) => deps.sql.withTransaction(settleUnfired(deps, options, tick, backoffMs)),
  deliver: (tick, delivery, handler) => deps.sql.withTransaction(deliver(deps, tick, delivery, handler)),
  settleFired: (tick) => deps.sql.withTransaction(settleFired(deps, options, tick))
})
