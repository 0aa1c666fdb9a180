/**
 * `makeBoundedPool(pieces)`: the bounded pool wired from its pieces. Apart from the gates it is
 * `PgClient.make` of `@effect/sql-pg`: the same compiler, transforms, span attributes, commit check,
 * savepoint release, JSON fragments and LISTEN/NOTIFY. Every entry point (borrowed statements,
 * transactions, `reserve`, `listen`, `notify`) passes admission, then the gate, then the driver pool,
 * which therefore never has waiters of its own (P1-P3). A statement inside a transaction reuses the
 * transaction's connection and takes neither slot (P4, by effect/sql's transaction service).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgPool from "@effect/sql-pg/PgPool"
import { Effect, type Scope } from "effect"
import { SqlClient, Statement } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import type { SqlError } from "effect/sql/SqlError"
import { makeAdmission } from "./admission.ts"
import { type BoundedPoolClient, POOL_WAITERS, type PoolImplementation } from "./api.ts"
import { sqlConnection } from "./connection.ts"
import { channelTooLong, type PoolPieces } from "./pieces.ts"
import { makeRetryPoolRefusal } from "./retry.ts"

/** `maxConnections` when the options give none (the driver pool's default). */
export const DEFAULT_MAX_CONNECTIONS = 10

const PgJson = Statement.custom<Statement.Custom<"PgJson", unknown>>("PgJson")

const spanAttributes = (options: PgClient.PgPoolConfig): ReadonlyArray<readonly [string, unknown]> => [
  ...(options.spanAttributes ? Object.entries(options.spanAttributes) : []),
  ["db.system.name", "postgresql"],
  ["db.namespace", options.database ?? options.username ?? "postgres"],
  ["server.address", options.host ?? "localhost"],
  ["server.port", options.port ?? 5432]
]

/**
 * Builds `boundedPool` from `pieces`.
 *
 * @example const boundedPool = makeBoundedPool(defaultPoolPieces)
 */
export const makeBoundedPool = (pieces: PoolPieces): PoolImplementation["boundedPool"] => (options) =>
  Effect.gen(function*() {
    const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS
    const driver = yield* PgPool.make(options)
    const admission = makeAdmission(maxConnections + POOL_WAITERS)
    const gate = pieces.gate(maxConnections)
    const checkout: Effect.Effect<void, SqlError, Scope.Scope> = pieces.checkout(admission, gate)
    const acquirer = Effect.andThen(checkout, Effect.map(driver.get, sqlConnection))
    const transactionAcquirer = Effect.andThen(checkout, Effect.map(driver.reserve, sqlConnection))
    const transformRows = options.transformResultNames
      ? Statement.defaultTransforms(options.transformResultNames, options.transformJson).array
      : undefined
    const client = yield* SqlClient.make({
      acquirer,
      borrower: (f) => Effect.scoped(Effect.andThen(checkout, driver.use((session) => f(sqlConnection(session))))),
      transactionAcquirer,
      prepareTransactionControls: true,
      commit: pieces.commit,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      compiler: PgClient.makeCompiler(options.transformQueryNames, options.transformJson),
      driver: "pg",
      spanAttributes: spanAttributes(options),
      transformRows
    })
    const notifyRuntime = { client, ownCheckout: acquirer as Effect.Effect<Connection, SqlError, Scope.Scope>, channelFits: pieces.channelFits }
    const bounded: BoundedPoolClient = Object.assign(client, {
      config: options,
      json: (value: unknown) => Statement.fragment([PgJson(value, undefined, undefined)]),
      listen: (channel: string) =>
        pieces.channelFits(channel)
          ? Effect.andThen(checkout, Effect.flatMap(driver.reserve, (session) => session.listen(channel)))
          : Effect.fail(channelTooLong(channel, "listen")),
      notify: (channel: string, payload: string) =>
        pieces.channelFits(channel) ? pieces.notify(notifyRuntime, channel, payload) : Effect.fail(channelTooLong(channel, "notify"))
    })
    return bounded
  })

/**
 * A pool implementation built from `pieces` and named `name` (the shipped one and known-bads).
 *
 * @example const mine = makePoolImplementation("mine", defaultPoolPieces)
 */
export const makePoolImplementation = (name: string, pieces: PoolPieces): PoolImplementation => ({
  name,
  boundedPool: makeBoundedPool(pieces),
  isPoolRefusal: pieces.isPoolRefusal,
  retryPoolRefusal: makeRetryPoolRefusal(pieces.isPoolRefusal, pieces.retrySchedule)
})
