/**
 * Cron benchmarks: what `next` costs on each side (the model's brute-force scan through Intl vs the
 * shipped croner-based `next`, adapted near DST transitions), and model-checked cron steps per second
 * on an adapter (implementation + model + one observation per step). Not wired into `npm run bench`
 * (bench/main.ts belongs to the lead); run `npx tsx bench/cron.ts` or import `benchCron`.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { StorageAdapter } from "../adapters/contract.ts"
import { makeSqliteAdapter } from "../adapters/sqlite/index.ts"
import { executeScenario } from "../harness/Runner.ts"
import { nextInstant, parseSchedule } from "../models/cron/index.ts"
import { cronSuite } from "../properties/cron/index.ts"
import { nextRun } from "../subjects/cron/next.ts"
import { parseSpec } from "../subjects/cron/spec.ts"

/** What one cron benchmark run measured. */
export interface CronBenchResult {
  readonly adapter: string
  /** `next` calls per second of the model's scan and of the shipped implementation, near a DST gap. */
  readonly modelNextPerSecond: number
  readonly implementationNextPerSecond: number
  readonly scenarios: number
  readonly steps: number
  /** Model-checked steps per wall second on the adapter (`cron/faults` scenarios). */
  readonly checkedStepsPerSecond: number
}

const SPECS = ["*/15 1-2 * * *", "30 2 * * *", "0 * * * 1-5", "*/30 * * * *"]
const ZONE = "America/New_York"
/** Instants around the 2026 spring-forward gap in New York, one minute apart. */
const AFTER_MS = Array.from({ length: 200 }, (_, index) => Date.UTC(2026, 2, 8, 4) + index * 60_000)

const perSecond = (count: number, startedMs: number) => Math.round(count / Math.max(0.001, (performance.now() - startedMs) / 1_000))

const benchNext = () => {
  const models = SPECS.map((spec) => parseSchedule(spec, ZONE)!)
  const implementations = SPECS.map((spec) => parseSpec(spec, ZONE))
  let startedMs = performance.now()
  for (const schedule of models) for (const afterMs of AFTER_MS) nextInstant(schedule, afterMs)
  const modelNextPerSecond = perSecond(models.length * AFTER_MS.length, startedMs)
  startedMs = performance.now()
  for (const parsed of implementations) for (const afterMs of AFTER_MS) nextRun(parsed, afterMs)
  return { modelNextPerSecond, implementationNextPerSecond: perSecond(implementations.length * AFTER_MS.length, startedMs) }
}

/**
 * Runs the cron benchmarks on `adapter` (default: sqlite) with `scenarios` generated `cron/faults`
 * scenarios.
 *
 * @example const result = await Effect.runPromise(benchCron())
 */
export const benchCron = (adapter: StorageAdapter = makeSqliteAdapter(), scenarios = 30): Effect.Effect<CronBenchResult, unknown> =>
  Effect.gen(function*() {
    const next = benchNext()
    const property = cronSuite().properties[1]!
    const sampled = fc.sample(property.scenario(adapter.capabilities), { seed: 1, numRuns: scenarios })
    const startedMs = performance.now()
    let steps = 0
    for (const scenario of sampled) steps += (yield* executeScenario(property, adapter, scenario)).steps.length
    return { adapter: adapter.name, ...next, scenarios, steps, checkedStepsPerSecond: perSecond(steps, startedMs) }
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.runPromise(benchCron()).then((result) => console.log(result), (error) => {
    console.error(error)
    process.exitCode = 1
  })
}
