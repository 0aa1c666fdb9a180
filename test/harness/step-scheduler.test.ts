import { Effect, Exit, Semaphore } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { hookPoint } from "../../harness/HookPoints.ts"
import { pctHitProbability } from "../../harness/PctBound.ts"
import { makeChooser, pctDepth, pctScheduleArbitrary, type StepSchedule, stepScheduleArbitrary, uniformScheduleArbitrary } from "../../harness/StepSchedule.ts"
import { runScheduled, type ScheduledRun } from "../../harness/StepScheduler.ts"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/**
 * A depth-2 ordering bug: B sees the flag "open" only when B's read runs after A's first segment and
 * before A's second (two ordering constraints). Scheduling points: A start, a.1, a.2; B start, b.1, b.2
 * (k = 6); with `noise`, a third operation C with start, c.1 (k = 8, n = 3).
 */
const flagRace = (schedule: StepSchedule, noise = false): Effect.Effect<{ readonly bug: boolean; readonly run: ScheduledRun<void, never> }> =>
  Effect.gen(function*() {
    let flag = "idle"
    let sawOpen = false
    const a = Effect.gen(function*() {
      flag = "open"
      yield* hookPoint("a.1")
      flag = "closed"
      yield* hookPoint("a.2")
    })
    const b = Effect.gen(function*() {
      yield* hookPoint("b.1")
      sawOpen = flag === "open"
      yield* hookPoint("b.2")
    })
    const c = hookPoint("c.1")
    const operations = [{ label: "A", effect: a }, { label: "B", effect: b }, ...(noise ? [{ label: "C", effect: c }] : [])]
    const result = yield* Effect.orDie(runScheduled(operations, schedule, { maxSteps: noise ? 8 : 6 }))
    return { bug: sawOpen, run: result }
  })

const hitRate = async (schedules: ReadonlyArray<StepSchedule>, noise = false): Promise<number> => {
  let hits = 0
  for (const schedule of schedules) if ((await run(flagRace(schedule, noise))).bug) hits++
  return hits / schedules.length
}

describe("step schedules as data", () => {
  it("PCT picks the highest-priority enabled operation and drops it at a change point", () => {
    const choose = makeChooser({ strategy: "pct", priorityOrder: [1, 0, 2], changePoints: [2] }, 3)
    expect(choose(0, [0, 1, 2])).toBe(1)
    expect(choose(1, [0, 2])).toBe(0)
    expect(choose(2, [0, 1, 2])).toBe(0) // 1 would run, but step 2 is a change point: 1 drops below all
    expect(choose(3, [1, 2])).toBe(2)
  })

  it("uniform picks scale to the enabled operations, 0 when missing", () => {
    const choose = makeChooser({ strategy: "uniform", picks: [560, 419, 420] }, 3)
    expect(choose(0, [0, 1, 2])).toBe(2)
    expect(choose(1, [0, 2])).toBe(0)
    expect(choose(2, [0, 2])).toBe(2)
    expect(choose(7, [1, 2])).toBe(1)
  })

  it("draws PCT schedules with exactly d−1 change points and permutation priorities", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 3 }).chain((depth) => pctScheduleArbitrary({ operations: 3, steps: 5 }, depth).map((schedule) => ({ depth, schedule }))), ({ depth, schedule }) => {
      expect(pctDepth(schedule)).toBe(depth)
      expect([...schedule.priorityOrder].sort()).toEqual([0, 1, 2])
      expect(schedule.changePoints.every((point) => point !== null && point >= 0 && point < 5)).toBe(true)
    }), { seed: 4, numRuns: 200 })
    expect(() => pctScheduleArbitrary({ operations: 2, steps: 4 }, 4)).toThrow(RangeError)
  })
})

describe("step scheduler", () => {
  it("is deterministic: the same seed gives the same schedule, steps and result", async () => {
    const draw = () => fc.sample(stepScheduleArbitrary({ operations: 2, steps: 6, maxDepth: 3 }), { seed: 42, numRuns: 30 })
    const first = draw()
    expect(draw()).toEqual(first)
    for (const schedule of first) {
      const [one, two] = [await run(flagRace(schedule)), await run(flagRace(schedule))]
      expect(two.bug).toBe(one.bug)
      expect(two.run.steps).toEqual(one.run.steps)
    }
  })

  it("releases one operation per step, each from where it paused, never a finished one", async () => {
    await fc.assert(fc.asyncProperty(stepScheduleArbitrary({ operations: 3, steps: 8, maxDepth: 3 }), async (schedule) => {
      const { run: result } = await run(flagRace(schedule, true))
      expect(result.exits.every(Exit.isSuccess)).toBe(true)
      expect(result.steps.map((step) => step.step)).toEqual(result.steps.map((_, index) => index))
      const fromOf = (label: string) => result.steps.filter((step) => step.label === label).map((step) => step.from)
      expect(fromOf("A")).toEqual(["start", "a.1", "a.2"])
      expect(fromOf("B")).toEqual(["start", "b.1", "b.2"])
      expect(fromOf("C")).toEqual(["start", "c.1"])
    }), { seed: 7, numRuns: 60 })
  })

  it("PCT of depth 2 finds a depth-2 ordering bug at least at the rate the bound promises; depth 1 never does", async () => {
    const schedules = (depth: number, operations: number, steps: number, seed: number) =>
      fc.sample(pctScheduleArbitrary({ operations, steps }, depth), { seed, numRuns: 600 })
    const bound2 = pctHitProbability({ operations: 2, steps: 6 }, 2) // 1/12
    const rate2 = await hitRate(schedules(2, 2, 6, 11))
    expect(rate2).toBeGreaterThanOrEqual(bound2 * 0.75)
    const bound3ops = pctHitProbability({ operations: 3, steps: 8 }, 2) // 1/24
    const rate3 = await hitRate(schedules(2, 3, 8, 12), true)
    expect(rate3).toBeGreaterThanOrEqual(bound3ops * 0.75)
    expect(await hitRate(schedules(1, 2, 6, 13))).toBe(0)
  })

  it("shrinks a failing schedule to a minimal one: uniform, picks 0 except the two constraints", async () => {
    const failure = await fc.check(fc.asyncProperty(stepScheduleArbitrary({ operations: 2, steps: 6, maxDepth: 2 }), async (schedule) => {
      return !(await run(flagRace(schedule))).bug
    }), { seed: 3, numRuns: 300 })
    expect(failure.failed).toBe(true)
    // B starts (420 of 840: the second of [A, B]), A opens the flag (the first), B reads it (the second):
    // the bug's two constraints; every other pick shrank to 0 and no PCT schedule is left.
    const schedule = failure.counterexample?.[0]
    expect(schedule).toEqual({ strategy: "uniform", picks: [420, 0, 420, 0, 0, 0] })
    expect((await run(flagRace(schedule!))).bug).toBe(true)
  })

  it("handles an operation blocked on a lock a paused operation holds, and states a stall as a typed error", async () => {
    const scenario = (isBlocked: boolean) =>
      Effect.gen(function*() {
        const lock = yield* Semaphore.make(1)
        const waiting = new Set<string>()
        const a = lock.withPermits(1)(hookPoint("a.locked"))
        const b = Effect.gen(function*() {
          yield* hookPoint("b.before")
          waiting.add("B")
          yield* lock.withPermits(1)(Effect.sync(() => waiting.delete("B")))
        })
        // A takes the lock and pauses; B is released into the lock; only A can go on.
        const schedule: StepSchedule = { strategy: "pct", priorityOrder: [0, 1], changePoints: [1] }
        return yield* runScheduled([{ label: "A", effect: a }, { label: "B", effect: b }], schedule, {
          maxSteps: 4,
          progressTimeoutMs: 300,
          ...(isBlocked ? { isBlocked: (label: string) => Effect.sync(() => waiting.has(label)) } : {})
        })
      })
    const handled = await run(scenario(true))
    expect(handled.blocked).toEqual(["B"])
    expect(handled.exits.every(Exit.isSuccess)).toBe(true)
    expect(handled.steps.map((step) => `${step.label}@${step.from}`)).toEqual(["A@start", "B@start", "B@b.before", "A@a.locked"])
    const stalled = await Effect.runPromiseExit(scenario(false))
    expect(Exit.isFailure(stalled) && stalled.cause.reasons[0]?._tag === "Fail" ? (stalled.cause.reasons[0].error as { _tag: string })._tag : "none").toBe("SchedulerStalled")
  })

  it("fails with typed errors past the step bound and on a schedule that does not fit", async () => {
    const tagOf = async (effect: Effect.Effect<unknown, { readonly _tag: string }>) => {
      const exit = await Effect.runPromiseExit(effect)
      return Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error._tag : "none"
    }
    const schedule = fc.sample(uniformScheduleArbitrary({ operations: 2, steps: 3 }), { seed: 1, numRuns: 1 })[0]!
    const ops = [{ label: "A", effect: Effect.andThen(hookPoint("x"), hookPoint("y")) }, { label: "B", effect: hookPoint("x") }]
    expect(await tagOf(runScheduled(ops, schedule, { maxSteps: 3 }))).toBe("StepBoundExceeded")
    expect(await tagOf(runScheduled(ops, { strategy: "pct", priorityOrder: [0, 0], changePoints: [] }, { maxSteps: 5 }))).toBe("InvalidSchedule")
    expect(await tagOf(runScheduled(ops, { strategy: "pct", priorityOrder: [0, 1], changePoints: [9] }, { maxSteps: 5 }))).toBe("InvalidSchedule")
    expect(await tagOf(runScheduled([ops[0]!, ops[0]!], schedule, { maxSteps: 5 }))).toBe("InvalidSchedule")
    expect(await tagOf(runScheduled(ops, schedule, { maxSteps: 0 }))).toBe("InvalidSchedule")
  })
})
