/**
 * Writing ticks (upstream `writeTicks`, `bootstrapTicks`) and tick ids (N3, N4, N5). Time comes from the
 * caller or Effect's `Clock`; uuids from Effect's `Random`.
 */
import { Clock, Effect, Random } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ActorRef, CronEntry } from "../../subjects/cron/api.ts"

/** Buckets an outbox row's routing key falls into (upstream `bucketOf`). */
const BUCKET_COUNT = 256

/** A tenant's routing key: FNV-1a of its name, kept to 28 bits (upstream's function is not in the seed, and no rule fixes it). */
export const routingKeyOf = (tenant: string): number => {
  let hash = 0x811c9dc5
  for (let index = 0; index < tenant.length; index++) {
    hash ^= tenant.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return (hash >>> 3) & 0x0fffffff
}

/** The outbox bucket of a routing key. */
export const bucketOf = (routingKey: number): number => routingKey % BUCKET_COUNT

/** A version 4 uuid from Effect's `Random`. */
export const randomUuidV4: Effect.Effect<string> = Effect.gen(function*() {
  const bytes: Array<number> = []
  for (let index = 0; index < 16; index++) bytes.push(yield* Random.nextIntBetween(0, 255))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
})

/** Tick id `v1.<now>.<max(dueAt, now) + retryWindow>.<uuid>` (N3). */
export const tickId = (nowMs: number, dueAtMs: number, retryWindowMs: number): Effect.Effect<string> =>
  Effect.map(randomUuidV4, (uuid) => `v1.${nowMs}.${Math.max(dueAtMs, nowMs) + retryWindowMs}.${uuid}`)

/** The caller of every tick: `System{source: "cron"}` for the actor, as JSON. */
export const cronCaller = (ref: ActorRef): string =>
  JSON.stringify({ _tag: "System", source: "cron", ref: { tenant: ref.tenant, actor: ref.actor, id: ref.id } })

/**
 * Writes the first tick of every entry `ref` has no pending tick for (N4): `due_at = scheduled_at =
 * next(now)`. The timer-key unique index makes concurrent writers, and entries that already tick, no-ops.
 * Runs in the caller's transaction.
 */
export const writeTicks = (
  sql: SqlClient.SqlClient,
  retryWindowMs: number,
  ref: ActorRef,
  entries: ReadonlyArray<CronEntry>,
  nowMs: number
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (entries.length === 0) return
    const routingKey = routingKeyOf(ref.tenant)
    const rows: Array<Record<string, unknown>> = []
    for (const entry of entries) {
      const dueAtMs = entry.next(nowMs)
      rows.push({
        routing_key: routingKey,
        intent_id: yield* tickId(nowMs, dueAtMs, retryWindowMs),
        kind: "intent",
        bucket: bucketOf(routingKey),
        due_at_ms: dueAtMs,
        scheduled_at_ms: dueAtMs,
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
    yield* sql`INSERT INTO actor_outbox ${sql.insert(rows as [Record<string, unknown>, ...Array<Record<string, unknown>>])}
      ON CONFLICT (routing_key, tenant_id, actor_type, actor_id, timer_key) WHERE timer_key IS NOT NULL
      DO NOTHING`
  })

/**
 * Writes a singleton's missing ticks at startup in one transaction (N5): its generation row, then its
 * ticks timed from now. Every runner does this; the unique indexes keep one row per entry.
 */
export const bootstrapTicks = (
  sql: SqlClient.SqlClient,
  retryWindowMs: number,
  ref: ActorRef,
  entries: ReadonlyArray<CronEntry>
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (entries.length === 0) return
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO actor_generations (routing_key, tenant_id, actor_type, actor_id)
        VALUES (${routingKeyOf(ref.tenant)}, ${ref.tenant}, ${ref.actor}, ${ref.id}) ON CONFLICT DO NOTHING`
      yield* writeTicks(sql, retryWindowMs, ref, entries, yield* Clock.currentTimeMillis)
    }))
  })

/** Runs an actor turn and writes its ticks in the same transaction, timed from the write (N4, B2). */
export const runTurn = <E>(
  sql: SqlClient.SqlClient,
  retryWindowMs: number,
  ref: ActorRef,
  entries: ReadonlyArray<CronEntry>,
  body: Effect.Effect<void, E>
): Effect.Effect<void, E | SqlError> =>
  sql.withTransaction(Effect.gen(function*() {
    yield* body
    yield* writeTicks(sql, retryWindowMs, ref, entries, yield* Clock.currentTimeMillis)
  }))
