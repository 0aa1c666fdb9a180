/**
 * Sections 5-8 of `npm run bench`: the content, clocks, cron and pool subjects, each measured in the
 * same run as the alarms sections so their ratios compare like with like. Each subject's measurements
 * live in its own bench file (`bench/<subject>.ts`); this file only runs them on the adapters chosen and
 * prints one table per section.
 */
import { Effect } from "effect"
import type { StorageAdapter } from "../adapters/contract.ts"
import { benchClocks, formatClocksBench } from "./clocks.ts"
import { benchContent } from "./content.ts"
import { benchCron } from "./cron.ts"
import { phaseSplitLines } from "./phaseSplit.ts"
import { benchPool } from "./pool.ts"

/** What the subject sections need from `main.ts`. */
export interface SubjectBenchOptions {
  /** The in-process adapters chosen (sqlite, pglite, postgres), in order. */
  readonly adapters: ReadonlyArray<StorageAdapter>
  /** The postgres adapter, when chosen (content's sweep cost and the pool need a real server). */
  readonly postgres: StorageAdapter | undefined
  readonly quick: boolean
  readonly skipKnownBad: boolean
}

const fmt = (value: number | null, digits = 0) => (value === null ? "n/a" : value.toLocaleString("en-US", { maximumFractionDigits: digits }))
const ratio = (a: number, b: number) => (b === 0 ? "n/a" : `${(a / b).toFixed(2)}x`)

const contentSection = (options: SubjectBenchOptions) =>
  Effect.gen(function*() {
    console.log("\n5. content: model-checked commands/s vs implementation alone; time to detect each known-bad; a forced sweep of 10,000 rows on postgres by candidates")
    if (options.postgres === undefined || options.adapters.length === 0) return console.log("(needs postgres and at least one in-process adapter)")
    const bench = yield* benchContent({ adapters: options.adapters, postgres: options.postgres, detectOn: options.adapters[0]!, scenarios: options.quick ? 10 : 40 })
    console.log("adapter    scenarios  commands   checked cmd/s   impl-only cmd/s   checked/impl")
    for (const r of bench.throughput) {
      console.log(`${r.adapter.padEnd(10)} ${String(r.scenarios).padStart(9)}  ${String(r.commands).padStart(8)}   ${fmt(r.checkedCommandsPerSecond).padStart(13)}   ${fmt(r.implementationCommandsPerSecond).padStart(15)}   ${ratio(r.checkedCommandsPerSecond, r.implementationCommandsPerSecond).padStart(12)}`)
    }
    for (const line of phaseSplitLines(bench.throughput)) console.log(line)
    if (!options.skipKnownBad) {
      console.log("known-bad                              adapter    caught  runs  wall ms  property")
      for (const d of bench.detection) console.log(`${d.name.padEnd(38)} ${d.adapter.padEnd(10)} ${(d.caught ? "yes" : "NO").padEnd(6)}  ${String(d.runsToDetect).padStart(4)}  ${String(Math.round(d.durationMs)).padStart(7)}  ${d.propertyId}`)
    }
    console.log("rows     candidates  deleted  sweep ms  ms per candidate")
    for (const s of bench.sweep) console.log(`${String(s.rows).padStart(6)}  ${String(s.candidates).padStart(10)}  ${String(s.deleted).padStart(7)}  ${String(s.sweepMs).padStart(8)}  ${fmt(s.msPerCandidate, 3).padStart(16)}`)
  })

const clocksSection = (options: SubjectBenchOptions) =>
  Effect.gen(function*() {
    console.log("\n6. clocks: fires model-checked per second, simulated time per wall second, time to detect each known-bad")
    const results = yield* Effect.forEach(options.adapters, (adapter) => benchClocks(adapter, { executions: options.quick ? 5 : 20, skipKnownBad: options.skipKnownBad }))
    console.log(formatClocksBench(results))
  })

const cronSection = (options: SubjectBenchOptions) =>
  Effect.gen(function*() {
    console.log("\n7. cron: next() calls/s of the model's brute-force scan vs croner near a DST gap; model-checked steps/s")
    console.log("adapter    model next/s   croner next/s   model/croner   scenarios  steps  checked steps/s")
    for (const adapter of options.adapters) {
      const r = yield* benchCron(adapter, options.quick ? 10 : 30)
      console.log(`${r.adapter.padEnd(10)} ${fmt(r.modelNextPerSecond).padStart(12)}   ${fmt(r.implementationNextPerSecond).padStart(13)}   ${ratio(r.modelNextPerSecond, r.implementationNextPerSecond).padStart(12)}   ${String(r.scenarios).padStart(9)}  ${String(r.steps).padStart(5)}  ${fmt(r.checkedStepsPerSecond).padStart(15)}`)
    }
  })

const poolSection = (options: SubjectBenchOptions) =>
  Effect.gen(function*() {
    console.log("\n8. pool: borrowed statements/s through the bounded pool vs the driver's pool alone (postgres); model-checked scenarios/s")
    if (options.postgres === undefined) return console.log("(needs postgres)")
    const r = yield* benchPool(options.postgres, { statements: options.quick ? 500 : 2_000, scenarios: options.quick ? 5 : 20 })
    console.log(`callers ${r.callers}, connections ${r.maxConnections}, statements ${r.statements}: bounded ${fmt(r.boundedPerSecond)}/s, driver pool ${fmt(r.driverPoolPerSecond)}/s, bounded/driver ${ratio(r.boundedPerSecond, r.driverPoolPerSecond)}`)
    for (const [propertyId, perSecond] of Object.entries(r.scenariosPerSecond)) console.log(`  ${propertyId}: ${fmt(perSecond, 1)} model-checked scenarios/s`)
  })

/** Runs and prints sections 5-8. */
export const benchSubjects = (options: SubjectBenchOptions) =>
  Effect.gen(function*() {
    yield* contentSection(options)
    yield* clocksSection(options)
    yield* cronSection(options)
    yield* poolSection(options)
  })
