/**
 * Statements on `engine_clocks`: insert-or-keep scheduling (C8), the completion CAS (C10) and the
 * pending clocks a sweep re-arms (C12).
 */
import { Effect, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type { ClockAddress } from "../../subjects/clocks/api.ts"
import { type ClockRow, decodeClock } from "./rows.ts"

/** Statements on the clocks table, bound to one client. */
export interface ClockStore {
  /** Inserts the clock unless it exists, then answers the stored row (replay keeps the deadline). */
  readonly schedule: (row: ClockRow) => Effect.Effect<ClockRow, SqlError.SqlError>
  /** Sets `completed_at_ms` only while it is null; true when this call won (C10c). */
  readonly completeIfPending: (address: ClockAddress, completedAtMs: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** Every clock not yet completed, optionally of one flow. */
  readonly pending: (flowName: string | undefined) => Effect.Effect<ReadonlyArray<ClockRow>, SqlError.SqlError>
}

const columns = "flow_name, execution_id, clock_name, deferred_name, due_at_ms, completed_at_ms, owner"

/** Builds the clock statements over `sql`. */
export const makeClockStore = (sql: SqlClient.SqlClient): ClockStore => {
  const find = (address: ClockAddress) =>
    sql`SELECT ${sql.unsafe(columns)} FROM engine_clocks
        WHERE flow_name = ${address.flowName} AND execution_id = ${address.executionId}
          AND clock_name = ${address.clockName}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), decodeClock))
    )

  const schedule = (row: ClockRow) =>
    Effect.gen(function*() {
      yield* sql`INSERT INTO engine_clocks (${sql.unsafe(columns)})
        VALUES (${row.flowName}, ${row.executionId}, ${row.clockName}, ${row.deferredName}, ${row.dueAtMs},
          ${row.completedAtMs}, ${row.owner})
        ON CONFLICT (flow_name, execution_id, clock_name) DO NOTHING`
      const stored = yield* find(row)
      if (Option.isNone(stored)) {
        return yield* Effect.die(new Error(`clock ${row.clockName} vanished inside its scheduling transaction`))
      }
      return stored.value
    })

  const completeIfPending = (address: ClockAddress, completedAtMs: number) =>
    sql`UPDATE engine_clocks SET completed_at_ms = ${completedAtMs}
        WHERE flow_name = ${address.flowName} AND execution_id = ${address.executionId}
          AND clock_name = ${address.clockName} AND completed_at_ms IS NULL
        RETURNING clock_name`.pipe(Effect.map((rows) => rows.length > 0))

  const pending = (flowName: string | undefined) =>
    (flowName === undefined
      ? sql`SELECT ${sql.unsafe(columns)} FROM engine_clocks WHERE completed_at_ms IS NULL
            ORDER BY flow_name, execution_id, clock_name`
      : sql`SELECT ${sql.unsafe(columns)} FROM engine_clocks
            WHERE completed_at_ms IS NULL AND flow_name = ${flowName}
            ORDER BY execution_id, clock_name`).pipe(Effect.map((rows) => rows.map(decodeClock)))

  return { schedule, completeIfPending, pending }
}
