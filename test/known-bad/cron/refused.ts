/**
 * A cron bug only a refused COMMIT shows (`commitRefused`, drawn by `cron/faults` through
 * `CronScenario.refusedCommits`): in-memory state updated inside a transaction, before it commits.
 * A crash forgets the memory with the process and a lost reply's transaction did commit, so only a
 * transaction that rolls back while the process goes on leaves the memory wrong.
 */
import { Effect } from "effect"
import { CRON_PREFIX } from "../../../subjects/cron/api.ts"
import { readInteger } from "../../../subjects/cron/dialect.ts"
import { OUTBOX_TABLE } from "../../../subjects/cron/schema.ts"
import { knownBadCron } from "./kit.ts"

/**
 * The tick versions (intent id at the due time it was claimed at) each runtime's claims took, by the
 * runtime's client. The harness rebuilds a crashed runner over the same client, so this memory outlives
 * the harness's restarts, which a process's would not; no generator crashes a claim, so only the
 * refused commit shows it.
 */
const takenByClient = new WeakMap<object, Set<string>>()

/**
 * The claim remembers each tick version it leased, so as never to take one twice, and records it as
 * soon as its statement returns, before the claim commits. A committed claim moves the row's due time,
 * so the remembered version never matches again; a claim whose COMMIT is refused leaves the tick due
 * at the remembered version, and this runner never claims it again (only another runner would).
 */
export const claimMarksBeforeCommit = knownBadCron({
  name: "claim-marks-before-commit",
  bug: "the claim records the tick versions it leased in memory before its transaction commits, so after a refused COMMIT the runner never claims those still-due ticks again",
  breaks: ["CRN-006"],
  pieces: {
    claimDue: (sql, request) =>
      Effect.gen(function*() {
        let taken = takenByClient.get(sql)
        if (taken === undefined) takenByClient.set(sql, taken = new Set())
        const typeFilter = request.types === null ? sql`1 = 1` : sql`actor_type IN ${sql.in(request.types)}`
        const due = yield* sql<{ readonly intent_id: string; readonly due_at_ms: unknown }>`SELECT intent_id, due_at_ms FROM ${sql.literal(OUTBOX_TABLE)}
          WHERE timer_key LIKE ${`${CRON_PREFIX}%`} AND ${typeFilter} AND due_at_ms <= ${request.nowMs}
          ORDER BY due_at_ms, actor_id, timer_key LIMIT ${request.limit} ${sql.literal(request.dialect.claimLock)}`
        const versionOf = (row: { readonly intent_id: string; readonly due_at_ms: unknown }) => `${row.intent_id}@${readInteger(row.due_at_ms)}`
        const fresh = due.filter((row) => !taken.has(versionOf(row)))
        if (fresh.length === 0) return []
        const rows = yield* sql<Record<string, unknown>>`UPDATE ${sql.literal(OUTBOX_TABLE)} SET due_at_ms = ${request.claimedUntilMs}
          WHERE intent_id IN ${sql.in(fresh.map((row) => row.intent_id))} AND due_at_ms <= ${request.nowMs}
          RETURNING tenant_id, actor_type, actor_id, routing_key, intent_id, command, payload, timer_key, scheduled_at_ms, due_at_ms`
        // The bug: remembered before the transaction commits.
        for (const row of fresh) taken.add(versionOf(row))
        return rows
      })
  }
})
