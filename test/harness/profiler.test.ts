/**
 * The bench's profiler: implementation calls and named phases are summed by a summing profiler, the
 * default profiler takes no phases, and the alarms and content throughput benches split their checked
 * time by phase.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { benchContentThroughput } from "../../bench/content.ts"
import { type PhasePercents, phasePercentsOf } from "../../bench/phaseSplit.ts"
import { benchAlarmsThroughput } from "../../bench/throughput.ts"
import { makeSummingProfiler, Profiler, timedImplementationCall, timedPhase, timedPhaseSync } from "../../harness/Profiler.ts"

describe("Profiler", () => {
  it("sums implementation calls and each named phase, sync phases included, a throwing one too", async () => {
    const profiler = makeSummingProfiler()
    await Effect.runPromise(
      Effect.gen(function*() {
        yield* timedPhase("observe", Effect.void)
        yield* timedPhase("observe", timedImplementationCall(Effect.void))
        yield* Effect.exit(timedPhase("call", Effect.fail("refused")))
      }).pipe(Effect.provideService(Profiler, profiler))
    )
    expect(() => timedPhaseSync(profiler, "model", () => {
      throw new Error("model threw")
    })).toThrow("model threw")
    expect(profiler.calls()).toBe(1)
    expect(Object.keys(profiler.phaseMs()).sort()).toEqual(["call", "model", "observe"])
    for (const ms of Object.values(profiler.phaseMs())) expect(ms).toBeGreaterThanOrEqual(0)
  })

  it("times nothing under the default profiler, and still runs the work", async () => {
    const value = await Effect.runPromise(Effect.gen(function*() {
      const profiler = yield* Profiler
      expect(profiler.recordPhaseMs).toBeUndefined()
      return timedPhaseSync(profiler, "model", () => 7) + (yield* timedPhase("observe", Effect.succeed(1)))
    }))
    expect(value).toBe(8)
  })

  it("splits a wall time by phase: the call less the implementation, the rest as other", () => {
    expect(phasePercentsOf(1000, 400, { call: 500, observe: 200, "model and checks": 100 })).toEqual({
      implementation: 40, callWrapping: 10, observation: 20, modelAndChecks: 10, other: 20
    })
    // A subject that names no phase: its implementation time and the rest.
    expect(phasePercentsOf(1000, 400, {})).toEqual({ implementation: 40, callWrapping: 0, observation: 0, modelAndChecks: 0, other: 60 })
    expect(phasePercentsOf(0, 0, {})).toEqual({ implementation: 0, callWrapping: 0, observation: 0, modelAndChecks: 0, other: 0 })
  })

  const expectNamedPhases = (commands: number, phases: PhasePercents) => {
    expect(commands).toBeGreaterThan(0)
    for (const share of [phases.implementation, phases.observation, phases.modelAndChecks]) expect(share).toBeGreaterThan(0)
    const total = phases.implementation + phases.callWrapping + phases.observation + phases.modelAndChecks + phases.other
    expect(total).toBeGreaterThan(99)
    expect(total).toBeLessThan(101)
  }

  it("splits the alarms bench's checked time into phases that add up to the whole", async () => {
    const result = await Effect.runPromise(benchAlarmsThroughput(makeSqliteAdapter(), { scenarios: 4 }))
    expectNamedPhases(result.commands, result.phasePercents)
  }, 60_000)

  it("splits the content bench's checked time the same way", async () => {
    const result = await Effect.runPromise(benchContentThroughput(makeSqliteAdapter(), 3))
    expectNamedPhases(result.commands, result.phasePercents)
  }, 60_000)
})
