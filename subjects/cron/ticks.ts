/**
 * Tick ids and tick writes (N3, N4, N5): `writeTicks` inserts one row per entry with insert-or-ignore
 * on the timer-key index, `bootstrapTicks` does it for a singleton in one transaction.
 */
import { Clock, Effect, Random } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { hookPoint } from "../../harness/HookPoints.ts"
import type { ActorRef, CronEntry } from "./api.ts"
import type { CronPieces } from "./pieces.ts"
import { bucketOf, GENERATIONS_TABLE, OUTBOX_TABLE, routingKeyOf } from "./schema.ts"

const hex = (value: number, digits: number): string => value.toString(16).padStart(digits, "0")

/** A version-4 uuid from Effect's `Random` (deterministic under a seeded `Random`). */
export const randomUuid: Effect.Effect<string> = Effect.gen(function*() {
  const words: Array<number> = []
  for (let index = 0; index < 4; index++) words.push(Math.floor((yield* Random.next) * 0x1_0000_0000))
  const text = words.map((word) => hex(word, 8)).join("")
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-4${text.slice(13, 16)}-${"89ab"[words[2]! >>> 30]}${text.slice(17, 20)}-${text.slice(20, 32)}`
})

/** `v1.<now>.<expiry>.<uuid>` (N3). */
export const tickId = (pieces: CronPieces, nowMs: number, dueAtMs: number, retryWindowMs: number): Effect.Effect<string> =>
  Effect.map(randomUuid, (uuid) => `v1.${nowMs}.${pieces.tickIdExpiryMs(nowMs, dueAtMs, retryWindowMs)}.${uuid}`)

/** The caller recorded on tick rows: `System{source: "cron"}` with the actor. */
export const cronCaller = (ref: ActorRef): string => JSON.stringify({ _tag: "System", source: "cron", ref: { tenant: ref.tenant, actor: ref.actor, id: ref.id } })

/** What the tick writers need. */
export interface TickWriterContext {
  readonly sql: SqlClient.SqlClient
  readonly pieces: CronPieces
  readonly retryWindowMs: number
}

/** Writes the first tick of every entry `ref` has no pending tick for (N4): insert-or-ignore. */
export const writeTicks = (context: TickWriterContext, ref: ActorRef, entries: ReadonlyArray<CronEntry>, nowMs: number): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (entries.length === 0) return
    const { sql } = context
    const routingKey = routingKeyOf(ref.tenant)
    const rows: Array<Record<string, string | number | null>> = []
    for (const entry of entries) {
      const dueAt = entry.next(nowMs)
      rows.push({
        routing_key: routingKey,
        intent_id: yield* tickId(context.pieces, nowMs, dueAt, context.retryWindowMs),
        kind: "intent",
        bucket: bucketOf(routingKey),
        due_at_ms: dueAt,
        scheduled_at_ms: dueAt,
        tenant_id: ref.tenant,
        actor_type: ref.actor,
        actor_id: ref.id,
        timer_key: entry.key,
        target_type: ref.actor,
        target_id: ref.id,
        command: entry.command,
        payload: yield* entry.payload,
        caller: cronCaller(ref)
      })
    }
    const [first, ...rest] = rows
    if (first === undefined) return
    yield* sql`INSERT INTO ${sql.literal(OUTBOX_TABLE)} ${sql.insert([first, ...rest])}
      ON CONFLICT (routing_key, tenant_id, actor_type, actor_id, timer_key) WHERE timer_key IS NOT NULL
      DO NOTHING`
  })

/**
 * Writes a singleton's missing ticks at startup in one transaction (N5). Every runner does this; the
 * generation and timer-key unique indexes keep one row per entry however many start at once. Hook
 * points `cron.bootstrapBegun` and `cron.bootstrapWritten` let the harness hold it open.
 */
export const bootstrapTicks = (context: TickWriterContext, ref: ActorRef, entries: ReadonlyArray<CronEntry>): Effect.Effect<void, SqlError> =>
  // As upstream: nothing to write, no transaction at all.
  entries.length === 0 ? Effect.void : context.sql.withTransaction(Effect.gen(function*() {
    const { sql } = context
    yield* hookPoint("cron.bootstrapBegun")
    yield* sql`INSERT INTO ${sql.literal(GENERATIONS_TABLE)} (routing_key, tenant_id, actor_type, actor_id)
      VALUES (${routingKeyOf(ref.tenant)}, ${ref.tenant}, ${ref.actor}, ${ref.id}) ON CONFLICT DO NOTHING`
    yield* writeTicks(context, ref, entries, yield* Clock.currentTimeMillis)
    yield* hookPoint("cron.bootstrapWritten")
  }))
