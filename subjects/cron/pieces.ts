/**
 * The named pieces the cron runtime is composed of, and the correct defaults. `makeCronRuntime(pieces)`
 * (make.ts) wires them into the tick writes, the claim and the settling phases. A known-bad variant
 * replaces exactly one piece; the shipped code has no bug flags. Each piece cites the rules it realises.
 */
import { Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ClaimedTick } from "./api.ts"
import { CRON_PREFIX } from "./api.ts"
import type { CronDialect } from "./dialect.ts"
import { readInteger } from "./dialect.ts"
import { nextRun } from "./next.ts"
import { OUTBOX_TABLE, RECEIPTS_TABLE, SCHEMA_STATEMENTS } from "./schema.ts"
import type { ParsedSpec } from "./spec.ts"

/** What a claim asks for (N6): due `$cron:` rows of `types` (`null`: any type) at `nowMs`, leased until `claimedUntilMs`. */
export interface ClaimRequest {
  readonly dialect: CronDialect
  readonly types: ReadonlyArray<string> | null
  readonly nowMs: number
  readonly claimedUntilMs: number
  readonly limit: number
}

/** The pieces of the cron runtime. */
export interface CronPieces {
  /** Rows: the statements creating the persisted layout when missing, in order (upstream's tables and types). */
  readonly schemaStatements: ReadonlyArray<string>
  /** N1: the timer key of a parsed entry (`spec` and `zone` as written, for spellings). */
  readonly timerKeyOf: (parsed: ParsedSpec, spec: string, zone: string | null) => string
  /** N2: the first instant strictly after `afterMs`. */
  readonly nextInstant: (parsed: ParsedSpec, afterMs: number) => number
  /** N3: the expiry part of a tick id. */
  readonly tickIdExpiryMs: (nowMs: number, dueAtMs: number, retryWindowMs: number) => number
  /** N4: the time a turn's ticks are computed from, given when the turn was admitted and when it writes. */
  readonly turnTickTimeMs: (admittedAtMs: number, writtenAtMs: number) => number
  /** N6: which actor types a runner may claim (`null`: no filter). */
  readonly claimableTypes: (declared: ReadonlyArray<string>) => ReadonlyArray<string> | null
  /**
   * N6, N8: the claim's statement, inside the claim transaction: moves the due ticks' `due_at_ms` to the
   * lease's end and returns their rows. A row another runner's open claim transaction holds is not
   * taken (Postgres: `FOR UPDATE SKIP LOCKED`), and only rows still due when written are leased.
   */
  readonly claimDue: (sql: SqlClient.SqlClient, request: ClaimRequest) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError>
  /** N8: the fence every settling write of a claimed tick carries. */
  readonly claimFence: (sql: SqlClient.SqlClient, tick: ClaimedTick) => Statement.Fragment
  /** N7: whether a claimed tick is older than the skip window. */
  readonly isStale: (nowMs: number, tick: ClaimedTick, skipMs: number) => boolean
  /** N8: the instant a rewrite computes the next tick from. */
  readonly rewriteBaseMs: (nowMs: number, tick: ClaimedTick) => number
  /** N7: whether a retargeted tick already fired under its id (a receipt exists). */
  readonly firedBefore: (sql: SqlClient.SqlClient, tick: ClaimedTick) => Effect.Effect<boolean, SqlError>
  /**
   * I2: whether delivering `command` under the tick's id replays a receipt instead of running. Keyed by
   * id and command here (a changed command under an old id is another command to the actor, B1's
   * premise); `models/cron/receiptReadings.ts` says why keying by the id alone is allowed too.
   */
  readonly receiptReplays: (sql: SqlClient.SqlClient, tick: ClaimedTick, command: string) => Effect.Effect<boolean, SqlError>
}

/** The correct pieces. */
export const defaultCronPieces: CronPieces = {
  schemaStatements: SCHEMA_STATEMENTS,
  timerKeyOf: (parsed) => (parsed.kind === "every" ? `$cron:@every ${parsed.intervalMs}ms` : `$cron:${parsed.zone} ${parsed.canonical}`),
  nextInstant: nextRun,
  tickIdExpiryMs: (nowMs, dueAtMs, retryWindowMs) => Math.max(dueAtMs, nowMs) + retryWindowMs,
  turnTickTimeMs: (_admittedAtMs, writtenAtMs) => writtenAtMs,
  claimableTypes: (declared) => declared,
  claimDue: (sql, request) => {
    const typeFilter = request.types === null ? sql`1 = 1` : sql`actor_type IN ${sql.in(request.types)}`
    return sql<Record<string, unknown>>`UPDATE ${sql.literal(OUTBOX_TABLE)} SET due_at_ms = ${request.claimedUntilMs}
      WHERE intent_id IN (SELECT intent_id FROM ${sql.literal(OUTBOX_TABLE)}
        WHERE timer_key LIKE ${`${CRON_PREFIX}%`} AND ${typeFilter} AND due_at_ms <= ${request.nowMs}
        ORDER BY due_at_ms, actor_id, timer_key LIMIT ${request.limit} ${sql.literal(request.dialect.claimLock)})
      RETURNING tenant_id, actor_type, actor_id, routing_key, intent_id, command, payload, timer_key, scheduled_at_ms, due_at_ms`
  },
  claimFence: (sql, tick) => sql`intent_id = ${tick.intent_id} AND due_at_ms = ${readInteger(tick.claimed_until)}`,
  isStale: (nowMs, tick, skipMs) => nowMs - readInteger(tick.scheduled_at) > skipMs,
  rewriteBaseMs: (nowMs) => nowMs,
  firedBefore: (sql, tick) =>
    Effect.map(
      sql`SELECT 1 AS fired FROM ${sql.literal(RECEIPTS_TABLE)}
        WHERE routing_key = ${readInteger(tick.routing_key)} AND tenant_id = ${tick.tenant_id}
          AND actor_type = ${tick.actor_type} AND actor_id = ${tick.actor_id} AND command_id = ${tick.intent_id}`,
      (rows) => rows.length > 0
    ),
  receiptReplays: (sql, tick, command) =>
    Effect.map(
      sql`SELECT 1 AS replayed FROM ${sql.literal(RECEIPTS_TABLE)}
        WHERE routing_key = ${readInteger(tick.routing_key)} AND tenant_id = ${tick.tenant_id} AND actor_type = ${tick.actor_type}
          AND actor_id = ${tick.actor_id} AND command_id = ${tick.intent_id} AND command = ${command}`,
      (rows) => rows.length > 0
    )
}
