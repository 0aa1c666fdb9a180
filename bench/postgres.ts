/**
 * Postgres workloads for the bench: the same upsert + select-by-key pairs through the raw driver and
 * through `effect/sql`, plus the adapter's lifecycle costs (server start, fresh isolated database).
 *
 * The raw driver: `@effect/sql-pg` 4.x does not wrap `pg` or `postgres.js`; it ships its own
 * wire-protocol client, `PgConnection` (prepared-statement cache, binary codecs). `SqlClient` adds
 * statement compilation, row transforms, spans and transaction bookkeeping on top of it. So "raw"
 * here means one `PgConnection` driven directly, and the difference between the two workloads is
 * the cost of the `effect/sql` layer.
 *
 * Run alone: `npx tsx bench/postgres.ts [pairs]` (uses DATABASE_URL, else starts an embedded server).
 */
import { Duration, Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgConnection from "@effect/sql-pg/PgConnection"
import { makePostgresAdapter, type PostgresIsolation } from "../adapters/postgres/index.ts"
import { startEmbeddedPostgres } from "../adapters/postgres/embedded.ts"
import { makeTypeRegistry } from "../adapters/postgres/int8.ts"
import { redactConnectionString } from "../adapters/postgres/redact.ts"

/** Result of one workload run. */
export interface WorkloadResult {
  readonly pairs: number
  readonly elapsedMs: number
  readonly pairsPerSecond: number
}

/** Bound on `pairs`, so a typo cannot run for hours. */
export const MAX_WORKLOAD_PAIRS = 10_000_000
/** Distinct keys the workload cycles through (upserts hit both inserts and updates). */
const KEY_SPACE = 1_000

const UPSERT = "INSERT INTO dc_bench_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v"
const SELECT = "SELECT v FROM dc_bench_kv WHERE k = $1"
/** A session-local table: nothing to clean up, nothing shared with other runs. */
const CREATE = "CREATE TEMP TABLE dc_bench_kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL)"

const checkPairs = (pairs: number) => {
  if (!Number.isSafeInteger(pairs) || pairs < 1 || pairs > MAX_WORKLOAD_PAIRS) {
    throw new RangeError(`pairs must be an integer in 1..${MAX_WORKLOAD_PAIRS}, got ${pairs}`)
  }
}

const result = (pairs: number, elapsedMs: number): WorkloadResult => ({
  pairs,
  elapsedMs,
  pairsPerSecond: Math.round(pairs / (elapsedMs / 1000))
})

/**
 * `pairs` times: upsert key `k<i mod 1000>` then select it back, through one raw `PgConnection`
 * (prepared statements, no `effect/sql` layer). Returns throughput.
 *
 * @example
 * const { pairsPerSecond } = await rawPostgresWorkload(process.env.DATABASE_URL!, 20_000)
 */
export const rawPostgresWorkload = (url: string, pairs: number): Promise<WorkloadResult> => {
  checkPairs(pairs)
  return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const connection = yield* PgConnection.make({
      url: Redacted.make(url),
      connectTimeout: Duration.seconds(5),
      types: makeTypeRegistry()
    })
    yield* connection.query(CREATE, [], false)
    const startedAt = performance.now()
    for (let index = 0; index < pairs; index++) {
      const key = `k${index % KEY_SPACE}`
      yield* connection.query(UPSERT, [key, index])
      const read = yield* connection.query(SELECT, [key])
      if (read.rows[0]?.["v"] !== index) return yield* Effect.die(new Error(`raw workload read back ${String(read.rows[0]?.["v"])}, expected ${index}`))
    }
    return result(pairs, performance.now() - startedAt)
  })))
}

/** The same workload through an `effect/sql` `SqlClient` (the adapter's client settings). */
export const effectSqlPostgresWorkload = (url: string, pairs: number): Promise<WorkloadResult> => {
  checkPairs(pairs)
  return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.makeClient({
      url: Redacted.make(url),
      connectTimeout: Duration.seconds(5),
      types: makeTypeRegistry()
    }).pipe(Effect.provide(Reactivity.layer))
    yield* sql.unsafe(CREATE)
    const startedAt = performance.now()
    for (let index = 0; index < pairs; index++) {
      const key = `k${index % KEY_SPACE}`
      yield* sql`INSERT INTO dc_bench_kv (k, v) VALUES (${key}, ${index}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
      const read = yield* sql<{ readonly v: number }>`SELECT v FROM dc_bench_kv WHERE k = ${key}`
      if (read[0]?.v !== index) return yield* Effect.die(new Error(`effect/sql workload read back ${String(read[0]?.v)}, expected ${index}`))
    }
    return result(pairs, performance.now() - startedAt)
  })))
}

/** Mean milliseconds of `open()` + close of a fresh isolated database (after one warm-up). */
export const measureFreshDatabaseMs = (url: string, isolation: PostgresIsolation, opens: number, connections = 1) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const adapter = yield* makePostgresAdapter({ databaseUrl: url, isolation }).make
    yield* Effect.scoped(adapter.open({ connections }))
    const startedAt = performance.now()
    for (let index = 0; index < opens; index++) yield* Effect.scoped(adapter.open({ connections }))
    return (performance.now() - startedAt) / opens
  })))

/** Prints every number: server start, fresh database per isolation mode, raw vs effect/sql throughput. */
const main = async (pairs: number) => {
  const given = process.env["DATABASE_URL"]
  const server = given === undefined || given === "" ? await startEmbeddedPostgres() : undefined
  const url = server?.url ?? given!
  try {
    if (server !== undefined) {
      console.log(`embedded server: initdb ${server.initMs.toFixed(0)} ms, start ${server.startMs.toFixed(0)} ms`)
    }
    console.log(`server ${redactConnectionString(url)}`)
    for (const isolation of ["schema", "database"] as const) {
      const ms = await measureFreshDatabaseMs(url, isolation, isolation === "schema" ? 50 : 10)
      console.log(`fresh isolated database (${isolation}): ${ms.toFixed(1)} ms per open + close`)
    }
    const raw = await rawPostgresWorkload(url, pairs)
    const viaEffect = await effectSqlPostgresWorkload(url, pairs)
    console.log(`raw PgConnection: ${raw.pairsPerSecond} pairs/s (${pairs} pairs)`)
    console.log(`effect/sql SqlClient: ${viaEffect.pairsPerSecond} pairs/s (${pairs} pairs)`)
  } finally {
    await server?.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(Number(process.argv[2] ?? 5_000))
}
