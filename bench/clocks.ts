/**
 * The clocks subject's bench, for `bench/main.ts` (the lead wires it in): per adapter,
 *
 * 1. fires model-checked per second: a fire-heavy scenario (four clocks on two runs, all firing under
 *    virtual time, replays and a restart) executed through the `clocks/model` property, so every fire
 *    is the implementation's fire plus the model's prediction plus the comparison of every observable;
 * 2. simulated time per wall second over the same executions;
 * 3. per known-bad clocks implementation: runs and wall time until the suite catches it (the kit's
 *    caught-loop at the gate's budget and seed, stopping at the first failure).
 *
 * @example
 * ```ts
 * const result = await Effect.runPromise(benchClocks(makeSqliteAdapter(), { executions: 20 }))
 * console.log(formatClocksBench([result]))
 * ```
 */
import { Effect } from "effect"
import type { StorageAdapter } from "../adapters/contract.ts"
import { catchKnownBad } from "../harness/knownBad.ts"
import { executeScenario } from "../harness/Runner.ts"
import type { Json } from "../harness/Property.ts"
import type { FaultedCommand } from "../models/clocks/index.ts"
import { clocksSuite } from "../properties/clocks/index.ts"
import { EXPECTATIONS } from "../test/known-bad/clocks/expectations.ts"
import { knownBadClocks } from "../test/known-bad/clocks/index.ts"

/** One known-bad's detection. */
export interface ClocksDetection {
  readonly name: string
  readonly caught: boolean
  readonly runsToDetect: number
  readonly wallMs: number
  readonly requirement: string | null
}

/** The bench's numbers on one adapter. */
export interface ClocksBenchResult {
  readonly adapter: string
  readonly fires: number
  readonly firesPerSecond: number
  readonly simulatedMsPerWallSecond: number
  readonly detections: ReadonlyArray<ClocksDetection>
}

/** The fire-heavy scenario: 4 clocks fire, a replay and a restart re-announce them, then more time. */
const FIRE_SCENARIO: { readonly commands: ReadonlyArray<FaultedCommand> } = {
  commands: [
    { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
    { op: "scheduleClock", exec: "e1", clock: "t2", durationMs: 2_000 },
    { op: "scheduleClock", exec: "e2", clock: "t1", durationMs: 2_000 },
    { op: "scheduleClock", exec: "e2", clock: "t2", durationMs: 5_000 },
    { op: "advance", ms: 6_000 },
    { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
    { op: "restart" },
    { op: "advance", ms: 60_000 }
  ]
}

/** Options of `benchClocks`. */
export interface ClocksBenchOptions {
  /** Executions of the fire scenario (default 20). */
  readonly executions?: number
  readonly skipKnownBad?: boolean
}

/** Measures the clocks subject on `adapter`. */
export const benchClocks = (adapter: StorageAdapter, options: ClocksBenchOptions = {}) =>
  Effect.gen(function*() {
    const property = clocksSuite().properties.find((entry) => entry.id === "clocks/model")!
    const executions = options.executions ?? 20
    let fires = 0
    let simulatedMs = 0
    const started = performance.now()
    for (let index = 0; index < executions; index++) {
      const trace = yield* executeScenario(property, adapter, FIRE_SCENARIO as unknown as Json)
      if (trace.divergence !== null) throw new Error(`the shipped clocks engine diverged in the bench: ${trace.divergence.explanation}`)
      for (const step of trace.steps) {
        const resumes = ((step.implementationState as { readonly resumes?: ReadonlyArray<{ readonly reason?: string }> } | undefined)?.resumes) ?? []
        fires += resumes.filter((resume) => resume.reason === "clock").length
      }
      const last = trace.steps[trace.steps.length - 1]
      simulatedMs += (last?.virtualTimeMs ?? 0) - (trace.steps[0]?.virtualTimeMs ?? 0) + 60_000
    }
    const wallSeconds = Math.max(1e-6, (performance.now() - started) / 1_000)
    const detections: Array<ClocksDetection> = []
    for (const bad of options.skipKnownBad === true ? [] : knownBadClocks) {
      const result = yield* catchKnownBad({ suite: clocksSuite(bad.implementation), adapter, propertyOrder: EXPECTATIONS[bad.name]!.properties, stopAfterFailures: 1 })
      detections.push({
        name: bad.name,
        caught: result.caught,
        runsToDetect: result.runsToDetect,
        wallMs: result.durationMs,
        requirement: result.counterexamples[0]?.divergence.requirementId ?? null
      })
    }
    const result: ClocksBenchResult = {
      adapter: adapter.name,
      fires,
      firesPerSecond: fires / wallSeconds,
      simulatedMsPerWallSecond: simulatedMs / wallSeconds,
      detections
    }
    return result
  })

/** The results as Markdown tables. */
export const formatClocksBench = (results: ReadonlyArray<ClocksBenchResult>): string => {
  const fmt = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 0 })
  const throughput = [
    "| adapter | fires model-checked | fires/s | simulated time per wall second |",
    "|---|---|---|---|",
    ...results.map((result) => `| ${result.adapter} | ${result.fires} | ${fmt(result.firesPerSecond)} | ${fmt(result.simulatedMsPerWallSecond / 1_000)} s |`)
  ]
  const detection = [
    "| known-bad | adapter | caught | runs to detect | wall time | requirement |",
    "|---|---|---|---|---|---|",
    ...results.flatMap((result) =>
      result.detections.map((d) => `| ${d.name} | ${result.adapter} | ${d.caught ? "yes" : "NO"} | ${d.runsToDetect} | ${fmt(d.wallMs)} ms | ${d.requirement ?? "-"} |`))
  ]
  return [...throughput, "", ...detection].join("\n")
}
