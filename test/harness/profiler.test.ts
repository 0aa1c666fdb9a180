/**
 * The bench's profiler: implementation calls and named phases are summed by a summing profiler, the
 * default profiler takes no phases, and the alarms throughput bench splits its checked time by phase.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
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

  it("splits the alarms bench's checked time into phases that add up to the whole", async () => {
    const result = await Effect.runPromise(benchAlarmsThroughput(makeSqliteAdapter(), { scenarios: 4 }))
    const phases = result.phasePercents
    expect(result.commands).toBeGreaterThan(0)
    for (const share of [phases.implementation, phases.observation, phases.modelAndChecks]) expect(share).toBeGreaterThan(0)
    const total = phases.implementation + phases.callWrapping + phases.observation + phases.modelAndChecks + phases.other
    expect(total).toBeGreaterThan(99)
    expect(total).toBeLessThan(101)
  }, 60_000)
})
