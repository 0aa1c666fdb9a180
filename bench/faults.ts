/**
 * Bench section: storage faults the `alarms/faults` property really injects, per scenario. Samples the
 * property's scenarios from the gate's seed, executes each on the adapter, and counts the steps whose
 * fault reached its transaction, by kind (crash inside, crash after commit, lost reply, failing platform
 * alarm write, refused commit, failed statement, failed read outside a transaction), and the faults
 * aimed at a transaction (or read) the operation never ran or that the model voided (a failed statement in a transaction that fails on its own).
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { StorageAdapter } from "../adapters/contract.ts"
import { DEFAULT_SEED } from "../harness/Budget.ts"
import type { Json } from "../harness/Property.ts"
import { executeScenario } from "../harness/Runner.ts"
import { alarmsSuite } from "../properties/alarms/index.ts"

/** Fault counts over the sampled scenarios of one adapter. */
export interface FaultCoverage {
  readonly adapter: string
  readonly scenarios: number
  readonly steps: number
  readonly crashesInside: number
  readonly crashesAfterCommit: number
  readonly lostReplies: number
  readonly platformAlarmFailures: number
  readonly refusedCommits: number
  readonly failedStatements: number
  readonly failedReads: number
  readonly notReached: number
  readonly wallMs: number
}

const KINDS = [
  ["crashesInside", /^crash inside storage transaction \d+\b/],
  ["crashesAfterCommit", /^crash right after storage transaction \d+\b/],
  ["lostReplies", /storage transaction \d+( \([^)]*\))? committed but its reply was lost/],
  ["platformAlarmFailures", /platform alarm write fails in storage transaction \d+\b/],
  ["refusedCommits", /the database refuses to commit storage transaction \d+\b/],
  ["failedStatements", /^statement \d+ of storage transaction \d+\b/],
  ["failedReads", /^read \d+ outside any transaction\b/]
] as const

/** Executes `scenarios` sampled `alarms/faults` scenarios on `adapter` and counts the faults that struck. */
export const benchFaultCoverage = (adapter: StorageAdapter, options: { readonly scenarios: number }): Effect.Effect<FaultCoverage, unknown> =>
  Effect.gen(function*() {
    const property = alarmsSuite().properties.find((candidate) => candidate.id === "alarms/faults")!
    const sampled = fc.sample(property.scenario(adapter.capabilities), { seed: DEFAULT_SEED, numRuns: options.scenarios }) as ReadonlyArray<Json>
    const counts = { crashesInside: 0, crashesAfterCommit: 0, lostReplies: 0, platformAlarmFailures: 0, refusedCommits: 0, failedStatements: 0, failedReads: 0, notReached: 0 }
    let steps = 0
    const started = performance.now()
    for (const scenario of sampled) {
      const trace = yield* executeScenario(property, adapter, scenario)
      steps += trace.steps.length
      for (const step of trace.steps) {
        const fault = step.fault ?? ""
        // An unreached fault's words name its kind too; it is counted only as not reached.
        if (fault.includes("(not reached)") || fault.includes("not injected")) counts.notReached++
        else for (const [kind, pattern] of KINDS) if (pattern.test(fault)) counts[kind]++
      }
    }
    return { adapter: adapter.name, scenarios: sampled.length, steps, ...counts, wallMs: Math.round(performance.now() - started) }
  })
