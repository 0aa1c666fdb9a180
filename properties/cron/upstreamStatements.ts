/**
 * Upstream's own statements (seed 001) run by the harness on the implementation's persisted layout, each
 * in a transaction the harness rolls back, so nothing the implementation sees changes. The layout is
 * part of the contract (the reference page's Rows section): an upgrade runs upstream's statements on a
 * database another implementation created, and the other way round. Upstream's settling rewrite writes
 * `ambiguous = false` (Postgres accepts that only in a BOOLEAN column), and its tick insert names neither
 * `attempts`, `last_error` nor `ambiguous` (their defaults must be 0, NULL and false) and conflicts on
 * the timer-key unique index.
 *
 * The seeds do not give upstream's CREATE TABLE, so declared types are not compared: only what upstream's
 * statements need of them.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { causeChainText } from "../../harness/ErrorText.ts"
import { inRolledBackTransaction } from "../../harness/RolledBackTransaction.ts"
import { flagOf } from "./observe.ts"
import { type Check } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"

/** The probe row's owner: a tenant and actor type no scenario uses. */
const PROBE = { tenant: "layout-probe", actorType: "layout-probe", actorId: "p", timerKey: "$cron:@every 60000ms" } as const

/** What a probe statement did: accepted, with what it read back, or refused with the database's words. */
type ProbeOutcome = { readonly accepted: true; readonly read?: unknown } | { readonly accepted: false; readonly refusal: string }

/** Runs `body` in a transaction that is always rolled back; a refused statement becomes its words. */
const rolledBack = (sql: SqlClient.SqlClient, body: Effect.Effect<unknown, SqlError>): Effect.Effect<ProbeOutcome> =>
  inRolledBackTransaction(sql, body).pipe(
    Effect.match({
      onSuccess: (read): ProbeOutcome => (read === undefined ? { accepted: true } : { accepted: true, read }),
      onFailure: (error): ProbeOutcome => ({ accepted: false, refusal: causeChainText(error) })
    })
  )

/** Upstream's `writeTicks` insert of one tick (seed 001: its columns, its conflict target). */
const insertTick = (sql: SqlClient.SqlClient, intentId: string) =>
  sql`INSERT INTO actor_outbox (routing_key, intent_id, kind, bucket, due_at_ms, scheduled_at_ms, tenant_id, actor_type, actor_id,
      timer_key, target_type, target_id, command, payload, caller)
    VALUES (1, ${intentId}, 'intent', 1, 60000, 60000, ${PROBE.tenant}, ${PROBE.actorType}, ${PROBE.actorId},
      ${PROBE.timerKey}, ${PROBE.actorType}, ${PROBE.actorId}, 'ping', '{}', '{}')
    ON CONFLICT (routing_key, tenant_id, actor_type, actor_id, timer_key) WHERE timer_key IS NOT NULL
    DO NOTHING`

/** The inserted tick's defaulted columns, as upstream reads them (`ambiguous` as true or false). */
const readDefaults = (sql: SqlClient.SqlClient, intentId: string) =>
  Effect.map(
    sql<{ readonly attempts: unknown; readonly last_error: unknown; readonly ambiguous: unknown }>`SELECT attempts, last_error, ambiguous
      FROM actor_outbox WHERE intent_id = ${intentId}`,
    (rows) => rows.map((row) => ({ attempts: Number(row.attempts), lastError: row.last_error, ambiguous: flagOf(row.ambiguous) }))
  )

/** Upstream's settling rewrite of a claimed tick (seed 001), in place. */
const rewriteTick = (sql: SqlClient.SqlClient, intentId: string) =>
  sql`UPDATE actor_outbox SET intent_id = ${`${intentId}.next`}, command = 'ping', payload = '{}', due_at_ms = 120000,
      scheduled_at_ms = 120000, attempts = 0, last_error = NULL, ambiguous = false
    WHERE intent_id = ${intentId} AND due_at_ms = 60000`

/** Upstream's `bootstrapTicks` generation row. */
const insertGeneration = (sql: SqlClient.SqlClient) =>
  sql`INSERT INTO actor_generations (routing_key, tenant_id, actor_type, actor_id)
    VALUES (1, ${PROBE.tenant}, ${PROBE.actorType}, ${PROBE.actorId}) ON CONFLICT DO NOTHING`

/** What every probe does on upstream's layout. */
export const UPSTREAM_PROBE_OUTCOMES = {
  writeTicks: { accepted: true, read: [{ attempts: 0, lastError: null, ambiguous: false }] },
  rewrite: { accepted: true },
  bootstrapGeneration: { accepted: true }
} as const

/**
 * The check that upstream's statements run on the layout the implementation created (Rows), made once
 * per scenario after the first runner's `make`. Never fails the harness: a refusal is the observation.
 */
export const upstreamStatementChecks = (sql: SqlClient.SqlClient): Effect.Effect<ReadonlyArray<Check>> =>
  Effect.gen(function*() {
    const intentId = "layout-probe-tick"
    const actual = {
      writeTicks: yield* rolledBack(sql, Effect.andThen(insertTick(sql, intentId), readDefaults(sql, intentId))),
      rewrite: yield* rolledBack(sql, Effect.andThen(insertTick(sql, intentId), Effect.asVoid(rewriteTick(sql, intentId)))),
      bootstrapGeneration: yield* rolledBack(sql, Effect.asVoid(insertGeneration(sql)))
    }
    return [{
      observable: "upstream's statements on the persisted layout (each rolled back)",
      expected: toJson(UPSTREAM_PROBE_OUTCOMES),
      actual: toJson(actual),
      rules: ["Rows"],
      why: "the persisted layout is part of the contract: upstream's tick insert (attempts, last_error and ambiguous left to their defaults 0, NULL and false, conflicting on the timer-key index), its rewrite (ambiguous = false) and its generation insert must run on it"
    }]
  })
