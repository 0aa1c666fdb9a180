/**
 * The public API of the `pool` subject: a bounded, first-come-first-served Postgres connection pool
 * over the driver pool of `@effect/sql-pg` (upstream: `@rikalabs/akter` `boundedPool`,
 * `runtime/database/bounded`). Rule numbers P1-P7 refer to `reference/pool.md`.
 *
 * This file is the binding contract for every implementation the suite certifies. An upstream
 * implementation binds with a thin wrapper, keeping its names:
 *
 * @example
 * ```ts
 * import { boundedPool, isPoolRefusal, retryPoolRefusal } from "@rikalabs/akter/runtime/database/bounded"
 * export default { subject: "pool", implementation: { name: "akter", boundedPool, isPoolRefusal, retryPoolRefusal } }
 * ```
 *
 * Determinism: the pool reads time only through Effect's `Clock` (the retry helper's delays).
 * Statements are observed by the harness on the wire (the `stream` option of the connection
 * config), never by asking the pool.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import type { Effect, Queue, Scope } from "effect"
import type * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient, Statement } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/**
 * The one hook point a pool may offer (`hookPoint(POOL_HANDED_OVER_HOOK)` right after a waiter was
 * handed its slot, before using it), so the harness can interrupt exactly at the hand-over. Optional:
 * without it the interruption lands just after, and the suite accepts either.
 */
export const POOL_HANDED_OVER_HOOK = "pool.handedOver"

/** Extra checkouts each pool holds beyond its connections before refusing further work (P1). */
export const POOL_WAITERS = 64

/**
 * The bounded client: an effect/sql `SqlClient` (statements borrow a checkout, `withTransaction` and
 * `reserve` hold one for their scope) plus `PgClient`'s JSON, LISTEN and NOTIFY helpers.
 */
export type BoundedPoolClient = SqlClient.SqlClient & {
  readonly config: PgClient.PgPoolConfig
  readonly json: (value: unknown) => Statement.Fragment
  /** Registers a listener on a checkout held until the scope closes (P1-P4). */
  readonly listen: (channel: string) => Effect.Effect<Queue.Dequeue<PgConnection.Notification, SqlError>, SqlError, Scope.Scope>
  /** Sends a notification on a checkout of its own, outside any transaction; channels over 63 bytes fail (P6). */
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>
}

/** An implementation of the pool subject. */
export interface PoolImplementation {
  /** Short stable name used in reports. */
  readonly name: string
  /** Builds the bounded pool for `options` (maxConnections defaults to 10); closes with the scope. */
  readonly boundedPool: (options: PgClient.PgPoolConfig) => Effect.Effect<BoundedPoolClient, SqlError, Reactivity.Reactivity | Scope.Scope>
  /** Recognises only a pre-statement checkout refusal (P1, P7). */
  readonly isPoolRefusal: (cause: unknown) => boolean
  /** Retries an effect while it fails with a pool refusal: 10 ms doubling, capped at 250 ms (P7). */
  readonly retryPoolRefusal: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}
