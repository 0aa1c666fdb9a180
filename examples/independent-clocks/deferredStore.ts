/**
 * Statements on `engine_deferreds`: first-writer-wins completion (C5), lookup and first consumption
 * (C7), and the completions a registration sweep wakes (C12).
 */
import { Effect, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type { DeferredAddress } from "../../subjects/clocks/api.ts"
import { decodeDeferred, type DeferredRow } from "./rows.ts"

/** A completion to store if none exists yet. */
export interface CompletionInput extends DeferredAddress {
  readonly exitJson: string
  readonly metadataJson: string | null
  readonly completedAtMs: number
}

/** How a completion attempt ended: created, or the stored row stands (C5). */
export interface CompletionResult {
  readonly outcome: "Created" | "Existing"
  readonly row: DeferredRow
}

/** Statements on the deferreds table, bound to one client. */
export interface DeferredStore {
  readonly complete: (input: CompletionInput) => Effect.Effect<CompletionResult, SqlError.SqlError>
  readonly find: (address: DeferredAddress) => Effect.Effect<Option.Option<DeferredRow>, SqlError.SqlError>
  readonly consume: (address: DeferredAddress, consumedAtMs: number) => Effect.Effect<boolean, SqlError.SqlError>
  readonly awaitingWake: (flowName: string) => Effect.Effect<ReadonlyArray<DeferredRow>, SqlError.SqlError>
}

/** Builds the deferred statements over `sql`. */
export const makeDeferredStore = (sql: SqlClient.SqlClient): DeferredStore => {
  const find = (address: DeferredAddress) =>
    sql`SELECT flow_name, execution_id, deferred_name, exit, metadata, completed_at_ms, consumed_at_ms
        FROM engine_deferreds
        WHERE flow_name = ${address.flowName} AND execution_id = ${address.executionId}
          AND deferred_name = ${address.deferredName}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), decodeDeferred))
    )

  const complete = (input: CompletionInput) =>
    Effect.gen(function*() {
      const inserted = yield* sql`INSERT INTO engine_deferreds
          (flow_name, execution_id, deferred_name, exit, metadata, completed_at_ms, consumed_at_ms)
        VALUES (${input.flowName}, ${input.executionId}, ${input.deferredName}, ${input.exitJson},
          ${input.metadataJson}, ${input.completedAtMs}, ${null})
        ON CONFLICT (flow_name, execution_id, deferred_name) DO NOTHING
        RETURNING flow_name`
      const stored = yield* find(input)
      if (Option.isNone(stored)) {
        return yield* Effect.die(new Error(`deferred ${input.deferredName} vanished inside its completion transaction`))
      }
      return { outcome: inserted.length > 0 ? "Created" as const : "Existing" as const, row: stored.value }
    })

  const consume = (address: DeferredAddress, consumedAtMs: number) =>
    sql`UPDATE engine_deferreds SET consumed_at_ms = ${consumedAtMs}
        WHERE flow_name = ${address.flowName} AND execution_id = ${address.executionId}
          AND deferred_name = ${address.deferredName} AND consumed_at_ms IS NULL
        RETURNING flow_name`.pipe(Effect.map((rows) => rows.length > 0))

  const awaitingWake = (flowName: string) =>
    sql`SELECT flow_name, execution_id, deferred_name, exit, metadata, completed_at_ms, consumed_at_ms
        FROM engine_deferreds
        WHERE flow_name = ${flowName} AND consumed_at_ms IS NULL
        ORDER BY execution_id, deferred_name`.pipe(Effect.map((rows) => rows.map(decodeDeferred)))

  return { complete, find, consume, awaitingWake }
}
