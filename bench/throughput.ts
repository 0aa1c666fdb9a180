/**
 * Throughput of the alarms properties on one adapter, measured in one run over the same scenarios:
 * model-checked commands per second (the whole execution: implementation, model step, observation of
 * every alarm's status and the platform alarm, comparison) against the implementation alone (the
 * wall time inside the implementation's calls, recorded by `harness/Profiler.ts` during the same
 * executions), and simulated (virtual) time per wall second. It also splits the checked wall time by
 * phase (`bench/phaseSplit.ts`), so the goal's gap has a place.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { StorageAdapter } from "../adapters/contract.ts"
import { makeSummingProfiler, Profiler } from "../harness/Profiler.ts"
import type { Json } from "../harness/Property.ts"
import { executeScenario } from "../harness/Runner.ts"
import { VIRTUAL_EPOCH_MS } from "../harness/VirtualClock.ts"
import { alarmsSuite } from "../properties/alarms/index.ts"
import { type PhasePercents, phasePercentsOf } from "./phaseSplit.ts"

/** One adapter's alarms throughput. */
export interface ThroughputResult {
  readonly adapter: string
  readonly scenarios: number
  /** Commands that called into the implementation. */
  readonly commands: number
  readonly checkedCommandsPerSecond: number
  readonly implementationCommandsPerSecond: number
  /** Virtual seconds covered by the scenarios per wall-clock second of checked execution. */
  readonly simulatedSecondsPerWallSecond: number
  /** Percent of the checked wall time in each phase; they sum to 100 (rounding aside). */
  readonly phasePercents: PhasePercents
}

/** Warm-up scenarios run before timing (JIT, statement caches). */
const WARMUP_SCENARIOS = 3

/** Samples `scenarios` scenarios of `alarms/model` with a fixed seed and executes each on `adapter`. */
export const benchAlarmsThroughput = (adapter: StorageAdapter, options: { readonly scenarios: number; readonly seed?: number }) =>
  Effect.gen(function*() {
    const property = alarmsSuite().properties.find((candidate) => candidate.id === "alarms/model")!
    const sampled = fc.sample(property.scenario(adapter.capabilities), { numRuns: options.scenarios + WARMUP_SCENARIOS, seed: options.seed ?? 7 }) as ReadonlyArray<Json>
    for (const scenario of sampled.slice(0, WARMUP_SCENARIOS)) yield* executeScenario(property, adapter, scenario)
    const profiler = makeSummingProfiler()
    let wallMs = 0
    let simulatedMs = 0
    for (const scenario of sampled.slice(WARMUP_SCENARIOS)) {
      const startedMs = performance.now()
      const trace = yield* executeScenario(property, adapter, scenario).pipe(Effect.provideService(Profiler, profiler))
      wallMs += performance.now() - startedMs
      const lastMs = trace.steps.reduce((latest, step) => Math.max(latest, step.virtualTimeMs), VIRTUAL_EPOCH_MS)
      simulatedMs += lastMs - VIRTUAL_EPOCH_MS
    }
    const commands = profiler.calls()
    const result: ThroughputResult = {
      adapter: adapter.name,
      scenarios: options.scenarios,
      commands,
      checkedCommandsPerSecond: Math.round(commands / (wallMs / 1000)),
      implementationCommandsPerSecond: Math.round(commands / (profiler.totalMs() / 1000)),
      simulatedSecondsPerWallSecond: Math.round(simulatedMs / wallMs),
      phasePercents: phasePercentsOf(wallMs, profiler.totalMs(), profiler.phaseMs())
    }
    return result
  })
