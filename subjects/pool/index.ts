/**
 * The shipped `pool` subject with upstream's names: `boundedPool`, `boundedLayer`, `POOL_WAITERS`,
 * `poolRefusal`, `isPoolRefusal`, `retryPoolRefusal`, and `shippedPool` (the `PoolImplementation`
 * the suite binds by default).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Effect, Layer } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { PoolImplementation } from "./api.ts"
import { makePoolImplementation } from "./make.ts"
import { defaultPoolPieces } from "./pieces.ts"

export { type BoundedPoolClient, POOL_WAITERS, type PoolImplementation } from "./api.ts"
export { isPoolRefusal, poolRefusal, PoolRefused } from "./refusal.ts"

/** The shipped bounded pool. */
export const shippedPool: PoolImplementation = makePoolImplementation("reference", defaultPoolPieces)

/** Builds the shipped bounded pool (closes with the scope). */
export const boundedPool = shippedPool.boundedPool

/** Retries a pre-statement checkout refusal, for scoped startup and background work (P7). */
export const retryPoolRefusal = shippedPool.retryPoolRefusal

/**
 * Provides the bounded client as `SqlClient` and `PgClient` without changing its connection
 * configuration.
 *
 * @example Layer.provide(program, boundedLayer({ url, maxConnections: 4 }))
 */
export const boundedLayer = (options: PgClient.PgPoolConfig): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  Layer.effectContext(
    Effect.map(boundedPool(options), (client) =>
      Context.make(SqlClient.SqlClient, client).pipe(
        Context.add(PgClient.PgClient, client as unknown as PgClient.PgClient)
      ))
  ).pipe(Layer.provide(Reactivity.layer))
