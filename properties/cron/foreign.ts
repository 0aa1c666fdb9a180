/**
 * Rows in the outbox that are not this scheduler's to claim (N6, N1): a `$cron:` tick of an actor type
 * no runner of the scenario declares, and application intents of the declared actor type whose timer
 * key lacks the `$cron:` prefix or is NULL. The harness writes them as another deploy or the
 * application would, in upstream's persisted layout (`subjects/cron/schema.ts`), already due; no claim may take them, so they stay
 * exactly as written and the model side shows them unchanged after every step.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { ACTOR_TYPE, TENANT } from "../../models/cron/index.ts"
import { bucketOf, routingKeyOf } from "../../subjects/cron/schema.ts"
import type { RawRow } from "./observe.ts"
import { TIMING } from "./scenario.ts"

/** An actor type no runner of a scenario declares. */
export const FOREIGN_ACTOR_TYPE = "report"

/** The actor the foreign rows belong to (not one of the scenario's actors, so keys never collide). */
export const FOREIGN_ACTOR_ID = "z"

/** The foreign rows, due at `dueAtMs` (the scenario's anchor); the other type's tick has a valid tick id (N3). */
export const foreignRows = (dueAtMs: number): ReadonlyArray<RawRow> => {
  const row = (actorType: string, timerKey: string | null, intentId: string, command: string): RawRow => ({
    tenant: TENANT, actorType, actorId: FOREIGN_ACTOR_ID, timerKey, intentId, kind: "intent", targetType: actorType, targetId: FOREIGN_ACTOR_ID,
    dueAtMs, scheduledAtMs: dueAtMs, command, payload: "{}",
    caller: { _tag: "System", source: "app", ref: { tenant: TENANT, actor: actorType, id: FOREIGN_ACTOR_ID } },
    attempts: 0, lastError: null, ambiguous: false
  })
  return [
    row(FOREIGN_ACTOR_TYPE, "$cron:@every 60000ms", `v1.${dueAtMs}.${dueAtMs + TIMING.retryWindowMs}.00000000-0000-4000-8000-000000000000`, "ping"),
    row(ACTOR_TYPE, "app:reminder", "foreign-app-keyed", "remind"),
    row(ACTOR_TYPE, "cron:0 * * * *", "foreign-app-unprefixed", "remind"),
    row(ACTOR_TYPE, null, "foreign-app-unkeyed", "remind")
  ]
}

/**
 * `ambiguous` as an untyped SQL literal: Postgres reads `'0'`/`'1'` as whichever of BOOLEAN (upstream
 * writes `ambiguous = false`) or INTEGER the implementation declared, and SQLite stores it as 0 or 1.
 * A bound parameter is typed by the driver and would be refused by one of the two column types.
 */
const ambiguousLiteral = (ambiguous: boolean): string => (ambiguous ? "'1'" : "'0'")

/** Writes `rows` into upstream's outbox table (after a runner's `make` created it). */
export const seedForeignRows = (sql: SqlClient.SqlClient, rows: ReadonlyArray<RawRow>): Effect.Effect<void, SqlError> =>
  Effect.forEach(rows, (row) => {
    // Upstream's routing key and bucket, so the rows look like any other deploy's; no claim may depend on them.
    const routingKey = routingKeyOf(row.tenant)
    return sql`INSERT INTO actor_outbox (routing_key, intent_id, kind, bucket, due_at_ms, scheduled_at_ms, tenant_id, actor_type, actor_id,
      timer_key, target_type, target_id, command, payload, caller, attempts, last_error, ambiguous)
      VALUES (${routingKey}, ${row.intentId}, ${row.kind}, ${bucketOf(routingKey)}, ${row.dueAtMs}, ${row.scheduledAtMs}, ${row.tenant},
      ${row.actorType}, ${row.actorId}, ${row.timerKey}, ${row.targetType}, ${row.targetId}, ${row.command}, ${row.payload},
      ${JSON.stringify(row.caller)}, ${row.attempts}, ${row.lastError}, ${sql.literal(ambiguousLiteral(row.ambiguous))})`
  }, { discard: true })
