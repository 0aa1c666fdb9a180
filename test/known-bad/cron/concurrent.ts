/**
 * Cron bugs that only truly concurrent transactions show: each is correct when runners' transactions
 * run one at a time (SQLite, PGlite, Durable Object SQLite, or any interleaving at phase boundaries),
 * and wrong when two runners' claims overlap on separate sessions. So they are caught only on adapters
 * with independent connections (the `postgres` adapter), through the races of the cron properties.
 */
import { Effect } from "effect"
import { CRON_PREFIX } from "../../../subjects/cron/api.ts"
import { OUTBOX_TABLE } from "../../../subjects/cron/schema.ts"
import { knownBadCron, type KnownBadCron } from "./kit.ts"

/**
 * The claim reads the due rows, then leases them by id without the due-time predicate (and without
 * locking them when it reads): a runner whose read ran before another runner's claim committed waits
 * on that claim's row lock and then leases the same tick again, so two runners hold one tick.
 */
export const claimReadThenUpdate = knownBadCron({
  name: "claim-read-then-update",
  bug: "the claim selects due rows, then updates them by id without re-checking due_at <= now (no lock, no lease predicate), so two overlapping claims both take one tick",
  breaks: ["CRN-010"],
  pieces: {
    claimDue: (sql, request) =>
      Effect.gen(function*() {
        const typeFilter = request.types === null ? sql`1 = 1` : sql`actor_type IN ${sql.in(request.types)}`
        const due = yield* sql<{ readonly intent_id: string }>`SELECT intent_id FROM ${sql.literal(OUTBOX_TABLE)}
          WHERE timer_key LIKE ${`${CRON_PREFIX}%`} AND ${typeFilter} AND due_at_ms <= ${request.nowMs}
          ORDER BY due_at_ms, actor_id, timer_key LIMIT ${request.limit}`
        if (due.length === 0) return []
        return yield* sql<Record<string, unknown>>`UPDATE ${sql.literal(OUTBOX_TABLE)} SET due_at_ms = ${request.claimedUntilMs}
          WHERE intent_id IN ${sql.in(due.map((row) => row.intent_id))}
          RETURNING tenant_id, actor_type, actor_id, routing_key, intent_id, command, payload, timer_key, scheduled_at_ms, due_at_ms`
      })
  }
})

/** The known-bads only concurrent claims catch. */
export const concurrentKnownBadCrons: ReadonlyArray<KnownBadCron> = [claimReadThenUpdate]
