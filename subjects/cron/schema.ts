/**
 * The persisted layout, in upstream's names (seed 001): `actor_outbox` (one row per pending tick, with
 * the timer-key unique index that makes `writeTicks` insert-or-ignore), `actor_generations` (the
 * singleton's generation row `bootstrapTicks` writes) and `actor_receipts` (one row per delivered
 * command). Integers are BIGINT (SQLite gives the name INTEGER affinity). `ambiguous` is BOOLEAN: upstream
 * writes `ambiguous = false`, which Postgres accepts only in a boolean column (SQLite stores it as 0).
 *
 * A receipt is keyed by (tenant, actor, command id, command): a redelivery of the same command id
 * replays the receipt, while a changed command under the same id is a different command to the actor,
 * which is why N7 checks for a receipt before delivering a retargeted tick. Keying by the id alone is
 * allowed too (`models/cron/receiptReadings.ts`).
 */

/** The outbox table. */
export const OUTBOX_TABLE = "actor_outbox"
/** The receipts table. */
export const RECEIPTS_TABLE = "actor_receipts"
/** The generations table. */
export const GENERATIONS_TABLE = "actor_generations"
/** The unique index on the timer key (insert-or-ignore, N4, N5). */
export const TIMER_KEY_INDEX = "actor_outbox_timer_key"

/** Statements creating every table and index when missing, in order. */
export const SCHEMA_STATEMENTS: ReadonlyArray<string> = [
  `CREATE TABLE IF NOT EXISTS ${OUTBOX_TABLE} (
    routing_key BIGINT NOT NULL,
    intent_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    due_at_ms BIGINT NOT NULL,
    scheduled_at_ms BIGINT NOT NULL,
    tenant_id TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    timer_key TEXT,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    command TEXT NOT NULL,
    payload TEXT NOT NULL,
    caller TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    ambiguous BOOLEAN NOT NULL DEFAULT false
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS ${TIMER_KEY_INDEX}
    ON ${OUTBOX_TABLE} (routing_key, tenant_id, actor_type, actor_id, timer_key) WHERE timer_key IS NOT NULL`,
  `CREATE TABLE IF NOT EXISTS ${GENERATIONS_TABLE} (
    routing_key BIGINT NOT NULL,
    tenant_id TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    PRIMARY KEY (routing_key, tenant_id, actor_type, actor_id)
  )`,
  `CREATE TABLE IF NOT EXISTS ${RECEIPTS_TABLE} (
    routing_key BIGINT NOT NULL,
    tenant_id TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    command_id TEXT NOT NULL,
    command TEXT NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (routing_key, tenant_id, actor_type, actor_id, command_id, command)
  )`
]

/** Number of outbox buckets a routing key falls into. */
export const BUCKETS = 64

/**
 * The routing key of a tenant: FNV-1a over its UTF-16 code units, 31 bits.
 *
 * @example routingKeyOf("t") // a stable non-negative integer
 */
export const routingKeyOf = (tenant: string): number => {
  let hash = 0x811c9dc5
  for (let index = 0; index < tenant.length; index++) {
    hash ^= tenant.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash & 0x7fffffff
}

/** The bucket of a routing key. */
export const bucketOf = (routingKey: number): number => routingKey % BUCKETS
