/**
 * Bench of the `pool` subject: borrowed statements per second through the shipped bounded pool
 * (admission + FIFO gate + driver pool) against `PgClient.make` of `@effect/sql-pg` (the driver pool
 * alone) on the same database, same connection count and same number of concurrent callers; the
 * difference is the cost of the two gates. Also the model-checked scenarios per second of the pool
 * properties (real server, wire tap, quiescence waits and model comparison included).
 *
 * Run alone: `npx tsx bench/pool.ts [statements]` (uses DATABASE_URL, else starts an embedded server).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql"
import { fileURLToPath } from "node:url"
import type { StorageAdapter } from "../adapters/contract.ts"
import { postgresConnectionOf } from "../adapters/postgres/connectionConfig.ts"
import { makePostgresAdapter } from "../adapters/postgres/index.ts"
import { runProperty } from "../harness/Runner.ts"
import { poolSuite } from "../properties/pool/index.ts"
import { shippedPool } from "../subjects/pool/index.ts"

/** Options of `benchPool`. */
export interface PoolBenchOptions {
  /** Statements per client (default 2 000). */
  readonly statements?: number
  /** Concurrent callers (default 16): more than connections, so the gate has waiters. */
  readonly callers?: number
  /** Pool size (default 4). */
  readonly maxConnections?: number
  /** Scenarios per property for the model-checked rate (default 20). */
  readonly scenarios?: number
}

/** What `benchPool` measured. */
export interface PoolBenchResult {
  readonly statements: number
  readonly callers: number
  readonly maxConnections: number
  readonly boundedPerSecond: number
  readonly driverPoolPerSecond: number
  /** Model-checked scenarios per second, per pool property. */
  readonly scenariosPerSecond: Readonly<Record<string, number>>
}

const perSecond = (count: number, elapsedMs: number): number => Math.round((count * 1000) / Math.max(1, elapsedMs))

/** Runs `statements` borrowed statements from `callers` fibers; returns the elapsed wall time. */
const workload = (client: SqlClient.SqlClient, statements: number, callers: number) =>
  Effect.gen(function*() {
    const perCaller = Math.ceil(statements / callers)
    const startedMs = performance.now()
    yield* Effect.forEach(Array.from({ length: callers }, (_, caller) => caller), (caller) =>
      Effect.forEach(Array.from({ length: perCaller }, (_, index) => index), (index) => client.unsafe(`SELECT ${caller * perCaller + index} AS n`), { discard: true }), {
      concurrency: "unbounded",
      discard: true
    })
    return performance.now() - startedMs
  })

/**
 * Measures the bounded pool against the driver pool alone on `adapter` (the postgres adapter).
 *
 * @example const result = yield* benchPool(adapter, { statements: 2_000 })
 */
export const benchPool = (adapter: StorageAdapter, options: PoolBenchOptions = {}) =>
  Effect.gen(function*() {
    const statements = options.statements ?? 2_000
    const callers = options.callers ?? 16
    const maxConnections = options.maxConnections ?? 4
    const database = yield* adapter.open()
    const connection = postgresConnectionOf(database.sql)
    if (connection === undefined) return yield* Effect.die(new Error(`adapter ${adapter.name} has no Postgres connection config`))
    const config: PgClient.PgPoolConfig = { url: connection.url, startupParameters: connection.startupParameters, maxConnections }
    const bounded = yield* shippedPool.boundedPool(config)
    const plain = yield* PgClient.make(config)
    yield* workload(bounded, callers * 4, callers)
    yield* workload(plain, callers * 4, callers)
    const boundedMs = yield* workload(bounded, statements, callers)
    const plainMs = yield* workload(plain, statements, callers)
    const scenariosPerSecond: Record<string, number> = {}
    for (const property of poolSuite().properties) {
      const startedMs = performance.now()
      const run = yield* runProperty({ property, adapter, seed: 1, runs: options.scenarios ?? 20 })
      scenariosPerSecond[property.id] = perSecond(run.runsExecuted, performance.now() - startedMs)
    }
    const result: PoolBenchResult = {
      statements,
      callers,
      maxConnections,
      boundedPerSecond: perSecond(statements, boundedMs),
      driverPoolPerSecond: perSecond(statements, plainMs),
      scenariosPerSecond
    }
    return result
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const statements = Number(process.argv[2] ?? 2_000)
  Effect.runPromise(Effect.scoped(Effect.flatMap(makePostgresAdapter().make, (adapter) => benchPool(adapter, { statements })))).then(
    (result) => {
      console.log(JSON.stringify(result, null, 2))
      process.exit(0)
    },
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
}
