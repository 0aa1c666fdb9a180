/**
 * A SQL journal (the shape of upstream `@smthrs/journal`) over the same `SqlClient` as the engine
 * state: the durable channel writes `journal_events` inside the caller's transaction (a savepoint
 * there, its own transaction otherwise), deduplicating by `(run_id, source_id, source_seq)` (C2);
 * the lossy channel is an in-memory queue pushed to a sink by `flush`, after commit (C3).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { type Journal, JournalError, type JournalInput } from "./api.ts"
import { type ClocksDialect, readInteger } from "./dialect.ts"
import { canonicalJson } from "./records.ts"

/** The journal's table. */
export const JOURNAL_TABLE = "journal_events"

/** Bound on records waiting in the lossy queue; older ones are dropped first (the channel is lossy). */
export const MAX_LOSSY_QUEUE = 1_000

/** DDL of the journal table. */
export const journalTableDdl = (dialect: ClocksDialect): string =>
  `CREATE TABLE IF NOT EXISTS ${JOURNAL_TABLE} (
    run_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    source_seq INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    meta TEXT NOT NULL,
    admitted ${dialect.epochMsType} NOT NULL,
    PRIMARY KEY (run_id, source_id, source_seq)
  )`

/** One stored journal record. */
export interface StoredRecord {
  readonly runId: string
  readonly sourceId: string
  readonly sourceSeq: number
  readonly eventType: string
  readonly payload: string
  readonly meta: string
  /** Admission order (1, 2, ...). */
  readonly admitted: number
}

/** Reads every stored record in admission order. */
export const readJournal = (sql: SqlClient.SqlClient): Effect.Effect<ReadonlyArray<StoredRecord>, SqlError> =>
  sql<Record<string, unknown>>`SELECT run_id, source_id, source_seq, event_type, payload, meta, admitted FROM ${sql.literal(JOURNAL_TABLE)} ORDER BY admitted`
    .pipe(Effect.map((rows) =>
      rows.map((row) => ({
        runId: String(row["run_id"]),
        sourceId: String(row["source_id"]),
        sourceSeq: readInteger(row["source_seq"]),
        eventType: String(row["event_type"]),
        payload: String(row["payload"]),
        meta: String(row["meta"]),
        admitted: readInteger(row["admitted"])
      }))
    ))

/** Where flushed lossy records go. */
export type LossySink = (records: ReadonlyArray<JournalInput>) => Effect.Effect<void, JournalError>

const unavailable = (cause: SqlError) => new JournalError({ reason: "unavailable", message: `journal storage failed: ${cause.message}` })

/**
 * Builds the journal over `sql` (creating its table) with `sink` receiving flushed lossy records.
 *
 * @example const journal = yield* makeSqlJournal(sql, clocksDialect("sqlite"), () => Effect.void)
 */
export const makeSqlJournal = (sql: SqlClient.SqlClient, dialect: ClocksDialect, sink: LossySink): Effect.Effect<Journal, SqlError> =>
  Effect.gen(function*() {
    yield* sql.unsafe(journalTableDdl(dialect))
    const table = sql.literal(JOURNAL_TABLE)
    const lossy: Array<JournalInput> = []

    const admit = (input: JournalInput) =>
      Effect.gen(function*() {
        const payload = canonicalJson(input.payload)
        const meta = canonicalJson(input.meta)
        const inserted = yield* sql`INSERT INTO ${table} (run_id, source_id, source_seq, event_type, payload, meta, admitted)
          SELECT ${input.runId}, ${input.sourceId}, ${input.sourceSeq}, ${input.eventType}, ${payload}, ${meta},
            COALESCE(MAX(admitted), 0) + 1 FROM ${table} WHERE 1 = 1
          ON CONFLICT (run_id, source_id, source_seq) DO NOTHING RETURNING run_id`
        if (inserted.length > 0) return "Admitted" as const
        const stored = yield* sql<Record<string, unknown>>`SELECT event_type, payload, meta FROM ${table}
          WHERE run_id = ${input.runId} AND source_id = ${input.sourceId} AND source_seq = ${input.sourceSeq}`
        const row = stored[0]
        if (row !== undefined && row["event_type"] === input.eventType && row["payload"] === payload && row["meta"] === meta) {
          return "Duplicate" as const
        }
        return yield* new JournalError({
          reason: "idempotency_conflict",
          message: `record ${input.sourceId}#${input.sourceSeq} of run ${input.runId} was admitted before with different content`
        })
      })

    return {
      emitDurableUnfenced: (input) =>
        sql.withTransaction(admit(input)).pipe(Effect.catchTag("SqlError", (cause) => Effect.fail(unavailable(cause)))),
      emitLossy: (input) =>
        Effect.sync(() => {
          lossy.push(input)
          if (lossy.length > MAX_LOSSY_QUEUE) lossy.shift()
        }),
      flush: Effect.suspend(() => {
        const batch = lossy.splice(0, lossy.length)
        return batch.length === 0 ? sink([]) : sink(batch)
      })
    }
  })
