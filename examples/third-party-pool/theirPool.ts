/**
 * "Their" bounded Postgres pool: an independent implementation of upstream's `boundedPool`
 * (`@rikalabs/akter`, `runtime/database/bounded`), written from the rules P1-P7 and the seed's
 * declaration file only.
 *
 * Every checkout passes three stages, each owning a slot in the checkout's scope:
 *   1. admission: a counter bounded by `maxConnections + POOL_WAITERS`, refused at once past it;
 *   2. a hand-over gate: one slot per connection, waiters served first come first served, a freed
 *      slot handed straight to the oldest waiter (never back to the free count);
 *   3. the driver pool of `@effect/sql-pg` (`PgPool`), which therefore never has waiters.
 * Scope finalizers run in reverse order, so the connection goes back to the driver pool before the
 * gate slot moves on, and the gate slot before the admission slot.
 *
 * Apart from the stages the client is assembled like `PgClient.make`: the same compiler, row
 * transforms, span attributes, COMMIT check, savepoint release, JSON fragments, LISTEN and NOTIFY.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import * as PgPool from "@effect/sql-pg/PgPool"
import { Data, Deferred, Duration, Effect, Exit, Schedule, Scope, Stream } from "effect"
import type { Queue } from "effect"
import type * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient, Statement } from "effect/sql"
import type { SqlConnection } from "effect/sql"
import { ConnectionError, SqlError, UnknownError } from "effect/sql/SqlError"

/** Extra checkouts held beyond the connections before further work is refused (P1). */
export const POOL_WAITERS = 64

/** Connections a pool opens when its options name no `maxConnections` (PgPool's default). */
const DEFAULT_MAX_CONNECTIONS = 10

/** First delay of the refusal retry ladder, in milliseconds (P7). */
const RETRY_BASE_DELAY_MS = 10

/** Longest delay of the refusal retry ladder, in milliseconds (P7). */
const RETRY_MAX_DELAY_MS = 250

/** Longest channel name Postgres accepts, in UTF-8 bytes (P6). */
const MAX_CHANNEL_NAME_BYTES = 63

/** The cause inside a refused checkout's `SqlError`: the pool was full, nothing was sent. */
export class PoolRefused extends Data.TaggedError("PoolRefused")<{
  readonly admittedCheckouts: number
  readonly admissionLimit: number
}> {}

/** Wraps a refusal cause into a retryable `SqlError` (a `ConnectionError` reason). */
export const poolRefusal = (cause: unknown): SqlError =>
  new SqlError({
    reason: new ConnectionError({
      cause,
      message: "bounded pool: checkout refused, every admission slot is taken (no statement was sent)",
      operation: "checkout"
    })
  })

/** Recognises only a pre-statement checkout refusal made by `poolRefusal` around a `PoolRefused`. */
export const isPoolRefusal = (cause: unknown): boolean =>
  cause instanceof SqlError && cause.reason._tag === "ConnectionError" && cause.reason.cause instanceof PoolRefused

/** The delays of the retry ladder: 10 ms doubling, never above 250 ms (P7). */
export const refusalRetrySchedule = Schedule.exponential(Duration.millis(RETRY_BASE_DELAY_MS)).pipe(
  Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.millis(RETRY_MAX_DELAY_MS))))
)

/** Retries `effect` while it fails with a pool refusal; any other failure passes through at once (P7). */
export const retryPoolRefusal = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(effect, { schedule: refusalRetrySchedule, while: (error: E) => isPoolRefusal(error) })

/** Admission (P1): a bounded count of held checkouts; `enter` adds the slot's release to the scope. */
interface Admission {
  readonly enter: Effect.Effect<void, SqlError, Scope.Scope>
}

/** Builds the admission stage for `admissionLimit` simultaneous checkouts. */
const makeAdmission = (admissionLimit: number): Admission => {
  let admittedCheckouts = 0
  const release = Effect.sync(() => {
    admittedCheckouts -= 1
  })
  const enter = Effect.uninterruptible(Effect.suspend(() => {
    if (admittedCheckouts >= admissionLimit) {
      return Effect.fail(poolRefusal(new PoolRefused({ admittedCheckouts, admissionLimit })))
    }
    admittedCheckouts += 1
    return Effect.addFinalizer(() => release)
  }))
  return { enter }
}

/** The fair gate (P2); `enter` waits its turn and adds the slot's hand-over to the scope. */
interface FairGate {
  readonly enter: Effect.Effect<void, never, Scope.Scope>
}

/** Builds the gate with `slotCount` slots; `handedOver` runs in a waiter right after its hand-over. */
const makeFairGate = (slotCount: number, handedOver: Effect.Effect<void>): FairGate => {
  let freeSlots = slotCount
  const waiters: Array<Deferred.Deferred<void>> = []
  /** Gives a freed slot to the oldest waiter, or back to the free count when nobody waits. */
  const passOn = (): void => {
    const oldest = waiters.shift()
    if (oldest === undefined) freeSlots += 1
    else Deferred.doneUnsafe(oldest, Exit.void)
  }
  const release = Effect.sync(passOn)
  /** Takes a free slot at once (false), or queues and waits interruptibly to be handed one (true). */
  const take = (restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>): Effect.Effect<boolean> =>
    Effect.suspend(() => {
      if (freeSlots > 0 && waiters.length === 0) {
        freeSlots -= 1
        return Effect.succeed(false)
      }
      const turn = Deferred.makeUnsafe<void>()
      waiters.push(turn)
      const waited = Effect.onInterrupt(restore(Deferred.await(turn)), () =>
        Effect.sync(() => {
          const index = waiters.indexOf(turn)
          if (index >= 0) waiters.splice(index, 1)
          else passOn() // it was handed the slot already: pass it to the next waiter
        }))
      return Effect.as(waited, true)
    })
  // The slot's release joins the scope before the hook runs, so an interruption there passes it on.
  const enter = Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(take(restore), (waited) =>
      Effect.andThen(Effect.addFinalizer(() => release), waited ? restore(handedOver) : Effect.void))
  )
  return { enter }
}

/** Row transform shape effect/sql hands to a connection. */
type RowTransform = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

/** The effect/sql `Connection` over one driver session (as `PgClient` builds it). */
const asSqlConnection = (session: PgConnection.PgConnection): SqlConnection.Connection => {
  const rowsOf = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    Effect.map(session.query(sql, params, prepare), (result) => result.rows)
  const transformed = (rows: Effect.Effect<ReadonlyArray<PgConnection.Row>, SqlError>, transformRows: RowTransform) =>
    transformRows === undefined ? rows : Effect.map(rows, transformRows)
  return {
    execute: (sql, params, transformRows) => transformed(rowsOf(sql, params, true), transformRows),
    executeRaw: (sql, params) => session.query(sql, params),
    executeValues: (sql, params) => session.queryValues(sql, params),
    executeValuesUnprepared: (sql, params) => session.queryValues(sql, params, false),
    executeUnprepared: (sql, params, transformRows) => transformed(rowsOf(sql, params, false), transformRows),
    executeStream: (sql, params, transformRows) =>
      transformRows === undefined
        ? session.stream(sql, params)
        : Stream.mapArray(session.stream(sql, params), (rows) => transformRows(rows) as typeof rows)
  }
}

/** Postgres answers COMMIT with ROLLBACK for an aborted transaction: that commit failed (P5). */
const commitChecked = (connection: SqlConnection.Connection): Effect.Effect<void, SqlError> =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    (result as PgConnection.Result).command === "ROLLBACK"
      ? Effect.fail(
        new SqlError({
          reason: new UnknownError({
            cause: new Error("COMMIT rolled back an aborted transaction"),
            message: "bounded pool: COMMIT was answered with ROLLBACK, the transaction did not commit",
            operation: "commit"
          })
        })
      )
      : Effect.void)

/** Fails with the channel error Postgres would give for a name over 63 UTF-8 bytes (P6). */
const checkChannelName = (channel: string): Effect.Effect<void, SqlError> => {
  if (new TextEncoder().encode(channel).byteLength <= MAX_CHANNEL_NAME_BYTES) return Effect.void
  const message = `PostgreSQL channel names must not exceed ${MAX_CHANNEL_NAME_BYTES} UTF-8 bytes`
  return Effect.fail(new SqlError({ reason: new UnknownError({ cause: new Error(message), message, operation: "notify" }) }))
}

/** A JSON value as the fragment the Postgres compiler turns into a `jsonb` parameter (PgClient's `json`). */
const jsonFragment = (value: unknown): Statement.Fragment =>
  Statement.fragment([Statement.custom<Statement.Custom<"PgJson", unknown>>("PgJson")(value, undefined, undefined)])

/** Span attributes as `PgClient.make` sets them. */
const spanAttributesOf = (options: PgClient.PgPoolConfig): ReadonlyArray<readonly [string, unknown]> => [
  ...(options.spanAttributes === undefined ? [] : Object.entries(options.spanAttributes)),
  ["db.system.name", "postgresql"],
  ["db.namespace", options.database ?? options.username ?? "postgres"],
  ["server.address", options.host ?? "localhost"],
  ["server.port", options.port ?? 5432]
]

/** What the bounded client offers: effect/sql's client plus PgClient's JSON, LISTEN and NOTIFY. */
export type BoundedClient = SqlClient.SqlClient & {
  readonly "~@effect/sql-pg/PgClient": "~@effect/sql-pg/PgClient"
  readonly config: PgClient.PgPoolConfig
  readonly json: (value: unknown) => Statement.Fragment
  readonly listen: (channel: string) => Effect.Effect<Queue.Dequeue<PgConnection.Notification, SqlError>, SqlError, Scope.Scope>
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>
}

/** Optional instrumentation of a pool: an effect run in a waiter right after its slot was handed over. */
export interface BoundedPoolHooks {
  readonly handedOver?: Effect.Effect<void> | undefined
}

/** The two slots of a checkout (admission, then the gate), both released by the checkout's scope. */
const makeCheckoutSlots = (options: PgClient.PgPoolConfig, hooks: BoundedPoolHooks): Effect.Effect<void, SqlError, Scope.Scope> => {
  const connectionCount = Math.max(1, Math.floor(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS))
  const admission = makeAdmission(connectionCount + POOL_WAITERS)
  const gate = makeFairGate(connectionCount, hooks.handedOver ?? Effect.void)
  return Effect.andThen(admission.enter, gate.enter)
}

/**
 * Builds the bounded client (closes with the scope): every entry point - borrowed statements,
 * `reserve`, `withTransaction`, `listen`, `notify` - takes its slots before it touches the driver pool.
 */
export const boundedPoolWith = (hooks: BoundedPoolHooks) =>
(options: PgClient.PgPoolConfig): Effect.Effect<BoundedClient, SqlError, Reactivity.Reactivity | Scope.Scope> =>
  Effect.gen(function*() {
    const driverPool = yield* PgPool.make(options)
    const slots = makeCheckoutSlots(options, hooks)
    const acquirer = Effect.andThen(slots, Effect.map(driverPool.get, asSqlConnection))
    const reserved = Effect.andThen(slots, driverPool.reserve)
    const borrower: SqlConnection.Borrower = (f) =>
      Effect.scoped(Effect.andThen(slots, driverPool.use((session) => f(asSqlConnection(session)))))
    const transformRows = options.transformResultNames === undefined
      ? undefined
      : Statement.defaultTransforms(options.transformResultNames, options.transformJson).array
    const client = yield* SqlClient.make({
      acquirer,
      borrower,
      transactionAcquirer: Effect.map(reserved, asSqlConnection),
      compiler: PgClient.makeCompiler(options.transformQueryNames, options.transformJson),
      driver: "pg",
      spanAttributes: spanAttributesOf(options),
      prepareTransactionControls: true,
      commit: commitChecked,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      transformRows
    })
    return Object.assign(client, {
      "~@effect/sql-pg/PgClient": "~@effect/sql-pg/PgClient" as const,
      config: options,
      json: jsonFragment,
      listen: (channel: string) => Effect.flatMap(reserved, (session) => session.listen(channel)),
      notify: (channel: string, payload: string) =>
        Effect.andThen(
          checkChannelName(channel),
          Effect.scoped(Effect.flatMap(acquirer, (connection) => connection.executeRaw("SELECT pg_notify($1, $2)", [channel, payload])))
        ).pipe(Effect.asVoid)
    })
  })

/** The bounded pool without instrumentation: upstream's `boundedPool`. */
export const boundedPool = boundedPoolWith({})
