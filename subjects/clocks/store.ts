/**
 * The SQL statements of the clocks subject over one `SqlClient`, in portable SQL. Each statement runs
 * in whatever transaction the calling fiber is in. Integers are epoch milliseconds.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ClockAddress, DeferredAddress, EncodedExit, JsonValue } from "./api.ts"
import { readInteger, readNullableInteger } from "./dialect.ts"
import { CLOCKS_TABLE, DEFERREDS_TABLE } from "./schema.ts"

/** A stored completion (C5, C7). */
export interface DeferredRow extends DeferredAddress {
  readonly exit: EncodedExit
  readonly metadata: JsonValue | null
  readonly completedAtMs: number
  readonly consumedAtMs: number | null
}

/** A stored clock (C8). */
export interface ClockRow extends ClockAddress {
  readonly deferredName: string
  readonly dueAtMs: number
  readonly completedAtMs: number | null
}

/** How a first-writer-wins write ended. */
export interface Completion {
  readonly _tag: "Created" | "Existing"
  /** The stored row after the write (the first writer's). */
  readonly row: DeferredRow
}

const decodeDeferred = (row: Record<string, unknown>): DeferredRow => ({
  flowName: String(row["flow_name"]),
  executionId: String(row["execution_id"]),
  deferredName: String(row["deferred_name"]),
  exit: JSON.parse(String(row["exit"])) as EncodedExit,
  metadata: row["metadata"] === null || row["metadata"] === undefined ? null : (JSON.parse(String(row["metadata"])) as JsonValue),
  completedAtMs: readInteger(row["completed_at_ms"]),
  consumedAtMs: readNullableInteger(row["consumed_at_ms"])
})

const decodeClock = (row: Record<string, unknown>): ClockRow => ({
  flowName: String(row["flow_name"]),
  executionId: String(row["execution_id"]),
  clockName: String(row["clock_name"]),
  deferredName: String(row["deferred_name"]),
  dueAtMs: readInteger(row["due_at_ms"]),
  completedAtMs: readNullableInteger(row["completed_at_ms"])
})

/** The statements of the clocks tables over one client. */
export interface ClockStore {
  readonly deferred: (address: DeferredAddress) => Effect.Effect<DeferredRow | undefined, SqlError>
  /** Inserts the completion when absent; true when this call inserted it. */
  readonly insertDeferredIfAbsent: (row: DeferredRow) => Effect.Effect<boolean, SqlError>
  /** Writes the completion whether or not one exists (last writer wins). */
  readonly upsertDeferred: (row: DeferredRow) => Effect.Effect<void, SqlError>
  /** Sets consumedAt when still null; true when this call set it. */
  readonly consumeIfFirst: (address: DeferredAddress, consumedAtMs: number) => Effect.Effect<boolean, SqlError>
  /** Sets consumedAt unconditionally. */
  readonly setConsumed: (address: DeferredAddress, consumedAtMs: number) => Effect.Effect<void, SqlError>
  readonly clock: (address: ClockAddress) => Effect.Effect<ClockRow | undefined, SqlError>
  /** Inserts the clock when absent (fenced to `owner`); true when this call inserted it. */
  readonly insertClockIfAbsent: (row: ClockRow, owner: string) => Effect.Effect<boolean, SqlError>
  /** Writes the clock's deadline whether or not it exists. */
  readonly upsertClockDeadline: (row: ClockRow, owner: string) => Effect.Effect<void, SqlError>
  /** Sets completedAt only when still null; true when this call won. */
  readonly completeClockIfPending: (address: ClockAddress, completedAtMs: number) => Effect.Effect<boolean, SqlError>
  /** Sets completedAt unconditionally; true when a row exists. */
  readonly setClockCompleted: (address: ClockAddress, completedAtMs: number) => Effect.Effect<boolean, SqlError>
  /** Clocks with completedAt null, optionally of one flow, in key order. */
  readonly pendingClocks: (flowName: string | undefined) => Effect.Effect<ReadonlyArray<ClockRow>, SqlError>
  /** Completed, unconsumed deferreds of a flow, in key order. */
  readonly completedDeferreds: (flowName: string) => Effect.Effect<ReadonlyArray<DeferredRow>, SqlError>
}

/** Builds the statements over `sql`. */
export const makeClockStore = (sql: SqlClient.SqlClient): ClockStore => {
  const deferreds = sql.literal(DEFERREDS_TABLE)
  const clocks = sql.literal(CLOCKS_TABLE)
  const deferredWhere = (a: DeferredAddress) =>
    sql`flow_name = ${a.flowName} AND execution_id = ${a.executionId} AND deferred_name = ${a.deferredName}`
  const clockWhere = (a: ClockAddress) => sql`flow_name = ${a.flowName} AND execution_id = ${a.executionId} AND clock_name = ${a.clockName}`
  const metadataText = (row: DeferredRow) => (row.metadata === null ? null : JSON.stringify(row.metadata))
  return {
    deferred: (address) =>
      sql<Record<string, unknown>>`SELECT * FROM ${deferreds} WHERE ${deferredWhere(address)}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : decodeDeferred(rows[0])))
      ),
    insertDeferredIfAbsent: (row) =>
      sql`INSERT INTO ${deferreds} (flow_name, execution_id, deferred_name, exit, metadata, completed_at_ms, consumed_at_ms)
          VALUES (${row.flowName}, ${row.executionId}, ${row.deferredName}, ${JSON.stringify(row.exit)}, ${metadataText(row)}, ${row.completedAtMs}, NULL)
          ON CONFLICT (flow_name, execution_id, deferred_name) DO NOTHING RETURNING flow_name`.pipe(Effect.map((rows) => rows.length > 0)),
    upsertDeferred: (row) =>
      sql`INSERT INTO ${deferreds} (flow_name, execution_id, deferred_name, exit, metadata, completed_at_ms, consumed_at_ms)
          VALUES (${row.flowName}, ${row.executionId}, ${row.deferredName}, ${JSON.stringify(row.exit)}, ${metadataText(row)}, ${row.completedAtMs}, NULL)
          ON CONFLICT (flow_name, execution_id, deferred_name) DO UPDATE SET exit = excluded.exit, metadata = excluded.metadata,
            completed_at_ms = excluded.completed_at_ms`.pipe(Effect.asVoid),
    consumeIfFirst: (address, consumedAtMs) =>
      sql`UPDATE ${deferreds} SET consumed_at_ms = ${consumedAtMs} WHERE ${deferredWhere(address)} AND consumed_at_ms IS NULL RETURNING flow_name`
        .pipe(Effect.map((rows) => rows.length > 0)),
    setConsumed: (address, consumedAtMs) =>
      sql`UPDATE ${deferreds} SET consumed_at_ms = ${consumedAtMs} WHERE ${deferredWhere(address)}`.pipe(Effect.asVoid),
    clock: (address) =>
      sql<Record<string, unknown>>`SELECT * FROM ${clocks} WHERE ${clockWhere(address)}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : decodeClock(rows[0])))
      ),
    insertClockIfAbsent: (row, owner) =>
      sql`INSERT INTO ${clocks} (flow_name, execution_id, clock_name, deferred_name, due_at_ms, completed_at_ms, owner)
          VALUES (${row.flowName}, ${row.executionId}, ${row.clockName}, ${row.deferredName}, ${row.dueAtMs}, NULL, ${owner})
          ON CONFLICT (flow_name, execution_id, clock_name) DO NOTHING RETURNING flow_name`.pipe(Effect.map((rows) => rows.length > 0)),
    upsertClockDeadline: (row, owner) =>
      sql`INSERT INTO ${clocks} (flow_name, execution_id, clock_name, deferred_name, due_at_ms, completed_at_ms, owner)
          VALUES (${row.flowName}, ${row.executionId}, ${row.clockName}, ${row.deferredName}, ${row.dueAtMs}, NULL, ${owner})
          ON CONFLICT (flow_name, execution_id, clock_name) DO UPDATE SET due_at_ms = excluded.due_at_ms`.pipe(Effect.asVoid),
    completeClockIfPending: (address, completedAtMs) =>
      sql`UPDATE ${clocks} SET completed_at_ms = ${completedAtMs} WHERE ${clockWhere(address)} AND completed_at_ms IS NULL RETURNING flow_name`
        .pipe(Effect.map((rows) => rows.length > 0)),
    setClockCompleted: (address, completedAtMs) =>
      sql`UPDATE ${clocks} SET completed_at_ms = ${completedAtMs} WHERE ${clockWhere(address)} RETURNING flow_name`
        .pipe(Effect.map((rows) => rows.length > 0)),
    pendingClocks: (flowName) =>
      (flowName === undefined
        ? sql<Record<string, unknown>>`SELECT * FROM ${clocks} WHERE completed_at_ms IS NULL ORDER BY flow_name, execution_id, clock_name`
        : sql<Record<string, unknown>>`SELECT * FROM ${clocks} WHERE completed_at_ms IS NULL AND flow_name = ${flowName}
            ORDER BY flow_name, execution_id, clock_name`).pipe(Effect.map((rows) => rows.map(decodeClock))),
    completedDeferreds: (flowName) =>
      sql<Record<string, unknown>>`SELECT * FROM ${deferreds} WHERE flow_name = ${flowName} AND consumed_at_ms IS NULL
        ORDER BY flow_name, execution_id, deferred_name`.pipe(Effect.map((rows) => rows.map(decodeDeferred)))
  }
}
