/**
 * The named pieces the bounded pool is composed of, and the correct defaults (rules of
 * `reference/pool.md`). `makeBoundedPool(pieces)` (make.ts) wires them around `@effect/sql-pg`'s
 * driver pool; the shipped pool uses `defaultPoolPieces`. A known-bad variant replaces exactly one.
 */
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import { Effect, type Schedule, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import type { Admission } from "./admission.ts"
import { fifoGate, type Gate, type GateFactory } from "./gate.ts"
import { isPoolRefusal } from "./refusal.ts"
import { refusalSchedule } from "./retry.ts"

/** What the notify piece may use. */
export interface NotifyRuntime {
  /** The client itself (statements inside a transaction run on the transaction's connection). */
  readonly client: SqlClient.SqlClient
  /** A checkout of its own: admission, gate and a pooled connection for the current scope. */
  readonly ownCheckout: Effect.Effect<Connection, SqlError, Scope.Scope>
  /** Whether a channel name is short enough for the server. */
  readonly channelFits: (channel: string) => boolean
}

/** The pieces of the bounded pool. */
export interface PoolPieces {
  /** P2: the gate with one slot per connection. */
  readonly gate: GateFactory
  /** P1-P3: the order a checkout passes admission and the gate (admission first). */
  readonly checkout: (admission: Admission, gate: Gate) => Effect.Effect<void, SqlError, Scope.Scope>
  /** P5: sends COMMIT and fails when the server answers ROLLBACK. */
  readonly commit: (connection: Connection) => Effect.Effect<void, SqlError>
  /** P6: whether a channel name fits (at most 63 UTF-8 bytes). */
  readonly channelFits: (channel: string) => boolean
  /** P6: sends a notification on a checkout of its own. */
  readonly notify: (runtime: NotifyRuntime, channel: string, payload: string) => Effect.Effect<void, SqlError>
  /** P7: which failures the retry helper retries (pre-statement refusals only). */
  readonly isPoolRefusal: (cause: unknown) => boolean
  /** P7: the retry schedule (exponential from 10 ms, capped at 250 ms). */
  readonly retrySchedule: Schedule.Schedule<unknown>
}

const channelEncoder = new TextEncoder()

/** Longest channel name the server accepts, in UTF-8 bytes (NAMEDATALEN - 1). */
export const MAX_CHANNEL_BYTES = 63

/** The error of a channel name that is too long (nothing was sent). */
export const channelTooLong = (channel: string, operation: string): SqlError => {
  const message = `PostgreSQL channel names must not exceed ${MAX_CHANNEL_BYTES} UTF-8 bytes (got ${channelEncoder.encode(channel).byteLength})`
  return new SqlError({ reason: new UnknownError({ cause: new Error(message), message, operation }) })
}

/** P5: COMMIT answered with ROLLBACK fails with an unknown-outcome error. */
const checkedCommit = (connection: Connection): Effect.Effect<void, SqlError> =>
  Effect.flatMap(connection.executeRaw("COMMIT", []) as Effect.Effect<PgConnection.Result, SqlError>, (result) =>
    result.command === "ROLLBACK"
      ? Effect.fail(
        new SqlError({
          reason: new UnknownError({
            cause: new Error("COMMIT rolled back an aborted transaction"),
            message: "COMMIT was answered with ROLLBACK: the transaction had aborted and nothing was committed",
            operation: "commit"
          })
        })
      )
      : Effect.void)

/** The shipped pieces. */
export const defaultPoolPieces: PoolPieces = {
  gate: fifoGate,
  checkout: (admission, gate) => Effect.andThen(admission.take, gate.take),
  commit: checkedCommit,
  channelFits: (channel) => channelEncoder.encode(channel).byteLength <= MAX_CHANNEL_BYTES,
  notify: (runtime, channel, payload) =>
    Effect.scoped(Effect.flatMap(runtime.ownCheckout, (connection) => connection.executeRaw("SELECT pg_notify($1, $2)", [channel, payload])))
      .pipe(Effect.asVoid),
  isPoolRefusal,
  retrySchedule: refusalSchedule
}
