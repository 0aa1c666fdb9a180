/**
 * Benchmarks of the content subject, for `bench/main.ts` to wire in:
 * - throughput: content operations model-checked per second (the whole execution: implementation,
 *   model step, observation of storage, comparison) against the implementation alone (the wall time
 *   inside its calls, `harness/Profiler.ts`), over the same `content/model` scenarios;
 * - detection: runs and wall time until each known-bad content store is caught (gate budget and seed);
 * - sweep cost: a forced sweep over 10,000 content rows on postgres, against how many are candidates.
 *
 * @example
 * const result = yield* benchContent({ adapters: [sqlite, postgres], postgres, scenarios: 40 })
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { StorageAdapter } from "../adapters/contract.ts"
import { catchKnownBad } from "../harness/knownBad.ts"
import { makeSummingProfiler, Profiler } from "../harness/Profiler.ts"
import type { Json } from "../harness/Property.ts"
import { executeScenario } from "../harness/Runner.ts"
import { withVirtualTime } from "../harness/VirtualClock.ts"
import { contentSuite } from "../properties/content/index.ts"
import { shippedContent } from "../subjects/content/index.ts"
import { EXPECTATIONS } from "../test/known-bad/content/expectations.ts"
import { knownBadContents } from "../test/known-bad/content/index.ts"
import { type PhasePercents, phasePercentsOf } from "./phaseSplit.ts"

/** One adapter's content throughput. */
export interface ContentThroughput {
  readonly adapter: string
  readonly scenarios: number
  readonly commands: number
  readonly checkedCommandsPerSecond: number
  readonly implementationCommandsPerSecond: number
  /** Percent of the checked wall time in each phase (`bench/phaseSplit.ts`). */
  readonly phasePercents: PhasePercents
}

/** Time to catch one known-bad. */
export interface ContentDetection {
  readonly name: string
  readonly adapter: string
  readonly caught: boolean
  readonly propertyId: string
  readonly runsToDetect: number
  readonly durationMs: number
}

/** One forced sweep over `rows` content rows of which `candidates` are past their horizon. */
export interface SweepCost {
  readonly rows: number
  readonly candidates: number
  readonly deleted: number
  readonly sweepMs: number
  readonly msPerCandidate: number | null
}

/** Everything `benchContent` measured. */
export interface ContentBench {
  readonly throughput: ReadonlyArray<ContentThroughput>
  readonly detection: ReadonlyArray<ContentDetection>
  readonly sweep: ReadonlyArray<SweepCost>
}

const WARMUP_SCENARIOS = 3

/** Model-checked vs implementation-only commands per second on `adapter`. */
export const benchContentThroughput = (adapter: StorageAdapter, scenarios: number) =>
  Effect.gen(function*() {
    const property = contentSuite().properties.find((candidate) => candidate.id === "content/model")!
    const sampled = fc.sample(property.scenario(adapter.capabilities), { numRuns: scenarios + WARMUP_SCENARIOS, seed: 7 }) as ReadonlyArray<Json>
    for (const scenario of sampled.slice(0, WARMUP_SCENARIOS)) yield* executeScenario(property, adapter, scenario)
    const profiler = makeSummingProfiler()
    let wallMs = 0
    for (const scenario of sampled.slice(WARMUP_SCENARIOS)) {
      const startedMs = performance.now()
      yield* executeScenario(property, adapter, scenario).pipe(Effect.provideService(Profiler, profiler))
      wallMs += performance.now() - startedMs
    }
    const result: ContentThroughput = {
      adapter: adapter.name,
      scenarios,
      commands: profiler.calls(),
      checkedCommandsPerSecond: Math.round(profiler.calls() / (wallMs / 1000)),
      implementationCommandsPerSecond: Math.round(profiler.calls() / (Math.max(1, profiler.totalMs()) / 1000)),
      phasePercents: phasePercentsOf(wallMs, profiler.totalMs(), profiler.phaseMs())
    }
    return result
  })

/** Runs and time to catch every known-bad content store on `adapter` (first failure per property). */
export const benchContentDetection = (adapter: StorageAdapter) =>
  Effect.forEach(knownBadContents, (bad) =>
    Effect.map(
      catchKnownBad({ suite: contentSuite(bad.implementation), adapter, propertyOrder: EXPECTATIONS[bad.name]!.properties, stopAfterFailures: 1 }),
      (result): ContentDetection => ({ name: bad.name, adapter: adapter.name, caught: result.caught, propertyId: result.run.propertyId, runsToDetect: result.runsToDetect, durationMs: result.durationMs })
    ))

const HOUR_MS = 3_600_000

/**
 * A forced sweep over `rows` content rows of one tenant (each with chunk 0), of which `candidates` have a
 * horizon far in the past and the rest one in the future, on a fresh database of `postgres`.
 */
export const benchSweepCost = (postgres: StorageAdapter, rows: number, candidates: number) =>
  Effect.scoped(withVirtualTime(Effect.gen(function*() {
    const database = yield* postgres.open()
    const store = yield* shippedContent.make({ sql: database.sql, dialect: "postgres", settings: { grantKey: "bench" } })
    const sql = database.sql
    yield* store.uploadBytes("bench", new Uint8Array([0]))
    yield* sql`INSERT INTO tenant_contents (routing_key, tenant_id, hash, size, granted_until_ms)
      SELECT r.routing_key, 'bench', md5(i::text), 1, CASE WHEN i <= ${candidates} THEN 0 ELSE 1000 * ${HOUR_MS}::bigint * 1000 END
      FROM generate_series(1, ${rows}) AS i, (SELECT routing_key FROM tenant_content_sweeps WHERE tenant_id = 'bench') AS r`
    yield* sql`INSERT INTO tenant_content_chunks (routing_key, tenant_id, hash, chunk, bytes)
      SELECT routing_key, tenant_id, hash, 0, '\\x00'::bytea FROM tenant_contents WHERE tenant_id = 'bench'
      ON CONFLICT DO NOTHING`
    yield* sql`ANALYZE tenant_contents`
    const startedMs = performance.now()
    const deleted = yield* store.sweep(true)
    const sweepMs = performance.now() - startedMs
    const cost: SweepCost = { rows, candidates, deleted, sweepMs: Math.round(sweepMs), msPerCandidate: candidates === 0 ? null : Math.round((sweepMs / candidates) * 1000) / 1000 }
    return cost
  })))

/** Runs every content benchmark. */
export const benchContent = (options: { readonly adapters: ReadonlyArray<StorageAdapter>; readonly postgres: StorageAdapter; readonly detectOn: StorageAdapter; readonly scenarios: number }) =>
  Effect.gen(function*() {
    const throughput = yield* Effect.forEach(options.adapters, (adapter) => benchContentThroughput(adapter, options.scenarios))
    const detection = yield* benchContentDetection(options.detectOn)
    const sweep = yield* Effect.forEach([0, 100, 1_000, 5_000, 10_000], (candidates) => benchSweepCost(options.postgres, 10_000, candidates))
    const bench: ContentBench = { throughput, detection, sweep }
    return bench
  })
