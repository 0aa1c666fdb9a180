/**
 * Adapter bench: per adapter, the same fixed workload (upsert + select by key, `pairs` times over 1,000
 * keys) through the raw driver and through the adapter's `effect/sql` client, and the mean cost of
 * opening (and closing) a fresh isolated database. Returns plain numbers; the caller prints them.
 *
 * The `effect/sql` side works with any `StorageAdapter`. The raw side needs a driver-specific
 * workload function; the built-in ones are `rawSqliteWorkload` and `rawPgliteWorkload`.
 *
 * Run alone: `npx tsx bench/adapters.ts [pairs]` (sqlite and pglite).
 */
import { PGlite } from "@electric-sql/pglite"
import Database from "better-sqlite3"
import { Effect, References } from "effect"
import type { StorageAdapter } from "../adapters/contract.ts"
import { makePgliteAdapterFromSession, makePgliteSession } from "../adapters/pglite/index.ts"
import { makeSqliteAdapter } from "../adapters/sqlite/index.ts"

/** Pairs in the default workload. */
export const DEFAULT_BENCH_PAIRS = 2_000
/** Fresh databases opened to measure the open cost. */
export const DEFAULT_BENCH_OPENS = 20
/** Upper bound on `pairs` and `opens`, so a typo cannot run for hours. */
export const MAX_BENCH_ITERATIONS = 1_000_000
/** Timed rounds of each workload; each kind reports its median round. */
export const BENCH_ROUNDS = 5
/** Distinct keys the workload cycles through (upserts hit both inserts and updates). */
const KEY_SPACE = 1_000
/** Pairs run before timing, to warm statement caches and the JIT. */
const WARMUP_PAIRS = 1_000

/** Runs the raw-driver workload of `pairs` pairs and resolves with the elapsed milliseconds of the timed part. */
export type RawWorkload = (pairs: number) => Promise<number>

/** One adapter to bench, with an optional raw-driver workload. */
export interface BenchTarget {
  readonly adapter: StorageAdapter
  readonly raw?: RawWorkload
}

/** What the bench measured for one adapter. */
export interface AdapterBenchResult {
  readonly adapter: string
  readonly pairs: number
  /** Raw driver: statements (upserts + selects) per second, or null without a raw workload. */
  readonly rawStatementsPerSecond: number | null
  /** The adapter's `effect/sql` client on the same workload. */
  readonly clientStatementsPerSecond: number
  /**
   * The same, with Effect's tracer disabled (`References.TracerEnabled`): what effect/sql's span per
   * statement costs. Conformance runs keep the tracer on, since an implementation may read its span.
   */
  readonly clientWithoutSpansStatementsPerSecond: number
  /** Mean ms to open and close one fresh isolated database. */
  readonly openMeanMs: number
  readonly opens: number
}

const checkCount = (name: string, value: number) => {
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_BENCH_ITERATIONS) {
    throw new RangeError(`${name} must be an integer in 1..${MAX_BENCH_ITERATIONS}, got ${value}`)
  }
}

/** The median of `samples` (at least one). */
const medianOf = (samples: ReadonlyArray<number>): number => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const key = (i: number) => `k${i % KEY_SPACE}`
const perSecond = (statements: number, elapsedMs: number) => Math.round(statements / (Math.max(elapsedMs, 0.001) / 1000))

/** The workload through an adapter's `effect/sql` client, on one fresh database; elapsed ms of the timed part. */
export const clientWorkload = (adapter: StorageAdapter, pairs: number): Effect.Effect<number, unknown> =>
  Effect.scoped(Effect.gen(function*() {
    const { sql } = yield* adapter.open()
    yield* sql`CREATE TABLE dc_bench_kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL)`
    const run = (count: number) =>
      Effect.gen(function*() {
        for (let i = 0; i < count; i++) {
          yield* sql`INSERT INTO dc_bench_kv (k, v) VALUES (${key(i)}, ${i}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
          yield* sql`SELECT v FROM dc_bench_kv WHERE k = ${key(i)}`
        }
      })
    yield* run(WARMUP_PAIRS)
    const started = performance.now()
    yield* run(pairs)
    return performance.now() - started
  }))

/** Raw better-sqlite3 on a fresh in-memory database, prepared statements. */
export const rawSqliteWorkload: RawWorkload = async (pairs) => {
  const db = new Database(":memory:")
  try {
    db.exec("CREATE TABLE dc_bench_kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL)")
    const upsert = db.prepare("INSERT INTO dc_bench_kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v")
    const select = db.prepare("SELECT v FROM dc_bench_kv WHERE k = ?")
    const run = (count: number) => {
      for (let i = 0; i < count; i++) {
        upsert.run(key(i), i)
        select.get(key(i))
      }
    }
    run(WARMUP_PAIRS)
    const started = performance.now()
    run(pairs)
    return performance.now() - started
  } finally {
    db.close()
  }
}

/** Raw `PGlite.query` on `pg`, in a temporary table. */
export const rawPgliteWorkload = (pg: PGlite): RawWorkload => async (pairs) => {
  await pg.exec("DROP TABLE IF EXISTS pg_temp.dc_bench_kv; CREATE TEMP TABLE dc_bench_kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL)")
  try {
    const run = async (count: number) => {
      for (let i = 0; i < count; i++) {
        await pg.query("INSERT INTO pg_temp.dc_bench_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v", [key(i), i])
        await pg.query("SELECT v FROM pg_temp.dc_bench_kv WHERE k = $1", [key(i)])
      }
    }
    await run(WARMUP_PAIRS)
    const started = performance.now()
    await run(pairs)
    return performance.now() - started
  } finally {
    await pg.exec("DROP TABLE IF EXISTS pg_temp.dc_bench_kv")
  }
}

/** Mean ms to open and close a fresh isolated database of `adapter`. */
export const openCostMs = (adapter: StorageAdapter, opens: number): Effect.Effect<number, unknown> =>
  Effect.gen(function*() {
    yield* Effect.scoped(adapter.open()) // warm-up
    const started = performance.now()
    for (let i = 0; i < opens; i++) yield* Effect.scoped(adapter.open())
    return (performance.now() - started) / opens
  })

/**
 * Benches every target, one after another (never concurrently, so they do not share the CPU).
 *
 * @example
 * const results = await benchAdapters([{ adapter: makeSqliteAdapter(), raw: rawSqliteWorkload }])
 * // [{ adapter: "sqlite", pairs: 2000, rawStatementsPerSecond: 600000, clientStatementsPerSecond: 100000, clientWithoutSpansStatementsPerSecond: 150000, openMeanMs: 0.3, opens: 20 }]
 */
export const benchAdapters = async (
  targets: ReadonlyArray<BenchTarget>,
  options: { readonly pairs?: number; readonly opens?: number } = {}
): Promise<ReadonlyArray<AdapterBenchResult>> => {
  const pairs = options.pairs ?? DEFAULT_BENCH_PAIRS
  const opens = options.opens ?? DEFAULT_BENCH_OPENS
  checkCount("pairs", pairs)
  checkCount("opens", opens)
  const results: Array<AdapterBenchResult> = []
  for (const { adapter, raw } of targets) {
    const client = () => Effect.runPromise(clientWorkload(adapter, pairs))
    const withoutSpans = () => Effect.runPromise(clientWorkload(adapter, pairs).pipe(Effect.provideService(References.TracerEnabled, false)))
    // One untimed run of each warms the JIT (the first run alone moved the effect/sql client from
    // ~12k to ~39k statements/s on this machine); then the three kinds take turns for `BENCH_ROUNDS`
    // rounds and each reports its median, so a GC pause or a busy neighbour moves one round, not the ratio.
    if (raw !== undefined) await raw(pairs)
    await client()
    await withoutSpans()
    const rawRounds: Array<number> = [], clientRounds: Array<number> = [], withoutSpansRounds: Array<number> = []
    for (let round = 0; round < BENCH_ROUNDS; round++) {
      if (raw !== undefined) rawRounds.push(await raw(pairs))
      clientRounds.push(await client())
      withoutSpansRounds.push(await withoutSpans())
    }
    const rawMs = raw === undefined ? null : medianOf(rawRounds)
    const clientMs = medianOf(clientRounds)
    const withoutSpansMs = medianOf(withoutSpansRounds)
    const openMeanMs = await Effect.runPromise(openCostMs(adapter, opens))
    results.push({
      adapter: adapter.name,
      pairs,
      rawStatementsPerSecond: rawMs === null ? null : perSecond(2 * pairs, rawMs),
      clientStatementsPerSecond: perSecond(2 * pairs, clientMs),
      clientWithoutSpansStatementsPerSecond: perSecond(2 * pairs, withoutSpansMs),
      openMeanMs: Math.round(openMeanMs * 100) / 100,
      opens
    })
  }
  return results
}

/** Benches the built-in sqlite and pglite adapters (creates and closes its own PGlite instance). */
export const benchBuiltInAdapters = async (
  options: { readonly pairs?: number; readonly opens?: number } = {}
): Promise<ReadonlyArray<AdapterBenchResult>> => {
  const pg = await PGlite.create()
  try {
    return await benchAdapters(
      [
        { adapter: makeSqliteAdapter(), raw: rawSqliteWorkload },
        { adapter: makePgliteAdapterFromSession(makePgliteSession(pg)), raw: rawPgliteWorkload(pg) }
      ],
      options
    )
  } finally {
    await pg.close()
  }
}

const isMain = import.meta.url === `file://${process.argv[1]}`
if (isMain) {
  const pairs = process.argv[2] === undefined ? DEFAULT_BENCH_PAIRS : Number(process.argv[2])
  benchBuiltInAdapters({ pairs }).then(
    (results) => console.table(results),
    (error) => {
      console.error(error)
      process.exitCode = 1
    }
  )
}
