/**
 * Time to detect each known-bad alarms implementation: for every known-bad variant and adapter, the
 * generated runs until the first failing scenario, the wall time of the property run (generation plus
 * shrinking), and the minimized counterexample's length.
 */
import { Effect } from "effect"
import type { StorageAdapter } from "../adapters/contract.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../harness/Budget.ts"
import { propertySeed } from "../harness/Conformance.ts"
import { runProperty } from "../harness/Runner.ts"
import { alarmsSuite } from "../properties/alarms/index.ts"
import { appliesOn } from "../test/known-bad/alarms/expectations.ts"
import { knownBadAlarms } from "../test/known-bad/alarms/index.ts"

/** What detecting one known-bad implementation on one adapter took. */
export interface DetectionResult {
  readonly knownBad: string
  readonly adapter: string
  readonly caught: boolean
  /** The property that caught it first (properties are tried in suite order). */
  readonly propertyId: string | null
  readonly requirementId: string | null
  readonly runsToDetect: number | null
  readonly counterexampleSteps: number | null
  /** Wall time until the verdict, including shrinking, over the properties tried. */
  readonly wallMs: number
}

/**
 * Runs each known-bad suite's properties in order until one fails, on `adapter`, at the gate's default
 * budget and seed; a bug that cannot show on the adapter (`appliesOn`: the lock bug needs two Postgres
 * connections) is left out, not counted as missed.
 */
export const detectKnownBad = (adapter: StorageAdapter, runs: number = DEFAULT_RUNS): Effect.Effect<ReadonlyArray<DetectionResult>, unknown> =>
  Effect.forEach(knownBadAlarms.filter((entry) => appliesOn(entry.name, adapter.name)), (entry) =>
    Effect.gen(function*() {
      const suite = alarmsSuite(entry.implementation)
      const startedMs = performance.now()
      for (const property of suite.properties) {
        const run = yield* runProperty({ property, adapter, seed: propertySeed(DEFAULT_SEED, property.id, adapter.name), runs })
        if (run.verdict === "fail") {
          // The earliest found of the run's counterexamples (one per failed requirement).
          const [first] = run.counterexamples
          const result: DetectionResult = {
            knownBad: entry.name,
            adapter: adapter.name,
            caught: true,
            propertyId: property.id,
            requirementId: first.divergence.requirementId,
            runsToDetect: first.runsToDetect,
            counterexampleSteps: first.trace.steps.length,
            wallMs: Math.round(performance.now() - startedMs)
          }
          return result
        }
      }
      const missed: DetectionResult = {
        knownBad: entry.name,
        adapter: adapter.name,
        caught: false,
        propertyId: null,
        requirementId: null,
        runsToDetect: null,
        counterexampleSteps: null,
        wallMs: Math.round(performance.now() - startedMs)
      }
      return missed
    }))
