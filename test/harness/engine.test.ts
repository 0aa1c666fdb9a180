import { Effect, Exit, Fiber, Random } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { describeStorageFault, isCrash, STORAGE_FAULT_PHASES, storageFaultArbitrary } from "../../harness/Faults.ts"
import { hookPoint, labelled, makeScriptedHooks, withScriptedHooks } from "../../harness/HookPoints.ts"
import { isReleaseOrder, releaseOrderArbitrary, runInterleaved } from "../../harness/Interleaving.ts"
import { deriveSeed, withRunEnvironment } from "../../harness/RunEnvironment.ts"
import { advanceByMs, advanceToMs, advanceToNextDeadline, nowMs, VIRTUAL_EPOCH_MS } from "../../harness/VirtualClock.ts"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

describe("virtual clock", () => {
  it("starts at the epoch, advances only when told, and says why it stopped", async () => {
    const result = await run(withRunEnvironment(1, Effect.gen(function*() {
      const start = yield* nowMs
      yield* advanceByMs(1_000)
      const afterJump = yield* nowMs
      const toDeadline = yield* advanceToNextDeadline([start + 5_000, start + 3_000])
      const alreadyDue = yield* advanceToNextDeadline([start])
      const idle = yield* advanceToNextDeadline([])
      yield* advanceToMs(start) // never backwards
      return { start, afterJump, toDeadline, alreadyDue, idle, end: yield* nowMs }
    })))
    expect(result.start).toBe(VIRTUAL_EPOCH_MS)
    expect(result.afterJump).toBe(VIRTUAL_EPOCH_MS + 1_000)
    expect(result.toDeadline).toEqual({ reason: "deadline", fromMs: VIRTUAL_EPOCH_MS + 1_000, toMs: VIRTUAL_EPOCH_MS + 3_000 })
    expect(result.alreadyDue.reason).toBe("already-due")
    expect(result.idle.reason).toBe("idle")
    expect(result.end).toBe(VIRTUAL_EPOCH_MS + 3_000)
  })

  it("wakes sleeping fibers when virtual time passes their deadline", async () => {
    const woke = await run(withRunEnvironment(1, Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Effect.as(Effect.sleep(60_000), "woke"))
      yield* advanceByMs(60_000)
      return yield* Fiber.await(fiber)
    })))
    expect(Exit.isSuccess(woke) && woke.value).toBe("woke")
  })

  it("rejects a jump that is negative or too large", async () => {
    const exit = await Effect.runPromiseExit(withRunEnvironment(1, advanceByMs(-1)))
    expect(Exit.isFailure(exit)).toBe(true)
  })
})

describe("seeded randomness", () => {
  it("gives the same ids for the same seed and different ones for another", async () => {
    const draw = (seed: number) => run(withRunEnvironment(seed, Effect.all([Random.nextInt, Random.nextInt, Random.next])))
    expect(await draw(5)).toEqual(await draw(5))
    expect(await draw(5)).not.toEqual(await draw(6))
    expect(deriveSeed(1, "a")).toBe(deriveSeed(1, "a"))
    expect(deriveSeed(1, "a")).not.toBe(deriveSeed(1, "b"))
  })
})

describe("hook points", () => {
  it("is a no-op outside the harness", async () => {
    expect(await run(Effect.as(hookPoint("anything"), 1))).toBe(1)
  })
})

describe("interleavings as data", () => {
  it("generates permutations that shrink toward the identity order", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }).chain((count) => releaseOrderArbitrary(count).map((order) => ({ count, order }))), ({ count, order }) => {
      expect(isReleaseOrder(order, count)).toBe(true)
    }))
    const failure = fc.check(fc.property(releaseOrderArbitrary(3), (order) => order[0] === 0), { seed: 1 })
    expect(failure.failed).toBe(true)
    expect(failure.counterexample?.[0]).toEqual([1, 0, 2])
  })

  it("releases paused operations exactly in the generated order, for every order", async () => {
    await fc.assert(fc.asyncProperty(releaseOrderArbitrary(3), async (order) => {
      const log: Array<string> = []
      await run(Effect.gen(function*() {
        const hooks = yield* makeScriptedHooks
        const operation = (label: string) => ({
          label,
          pauseAt: "middle",
          effect: Effect.gen(function*() {
            log.push(`${label}:start`)
            yield* hookPoint("middle")
            log.push(`${label}:end`)
          })
        })
        yield* runInterleaved(hooks, [operation("A"), operation("B"), operation("C")], order)
      }))
      const ends = log.filter((entry) => entry.endsWith(":end")).map((entry) => entry[0])
      expect(ends).toEqual(order.map((index) => "ABC"[index]))
      expect(log.slice(0, 3).every((entry) => entry.endsWith(":start"))).toBe(true)
    }), { numRuns: 12, seed: 2 })
  })

  it("refuses a schedule that is not a permutation", async () => {
    const exit = await Effect.runPromiseExit(Effect.gen(function*() {
      const hooks = yield* makeScriptedHooks
      return yield* runInterleaved(hooks, [{ label: "A", pauseAt: "x", effect: Effect.void }], [1])
    }))
    expect(Exit.isFailure(exit)).toBe(true)
  })

  it("labels operations so pauses target one operation only", async () => {
    const hits = await run(Effect.gen(function*() {
      const hooks = yield* makeScriptedHooks
      yield* withScriptedHooks(hooks, labelled("solo", hookPoint("p")))
      return hooks.hits()
    }))
    expect(hits).toEqual([{ hook: "p", label: "solo", occurrence: 1 }])
  })
})

describe("storage faults", () => {
  it("draw a transaction within bounds and a phase, describe it in words, and shrink to the first ones", () => {
    const arbitrary = storageFaultArbitrary({ maxTransaction: 3, phases: ["afterCommit", "lostReply"] })
    fc.assert(fc.property(arbitrary, (fault) => {
      expect(fault.transaction).toBeGreaterThanOrEqual(1)
      expect(fault.transaction).toBeLessThanOrEqual(3)
      expect(["afterCommit", "lostReply"]).toContain(fault.phase)
      expect(describeStorageFault(fault, "acknowledge", true)).toContain(`storage transaction ${fault.transaction} (acknowledge)`)
      expect(describeStorageFault(fault, undefined, false)).toContain("(not reached)")
    }))
    const shrunk = fc.check(fc.property(arbitrary, () => false), { seed: 3 })
    expect(shrunk.counterexample?.[0]).toEqual({ transaction: 1, phase: "afterCommit" })
    expect(isCrash({ transaction: 1, phase: "inside" })).toBe(true)
    expect(isCrash({ transaction: 1, phase: "lostReply" })).toBe(false)
    expect(() => storageFaultArbitrary({ maxTransaction: 1, phases: [] })).toThrow(/at least one phase/)
  })

  it("describe every phase of the vocabulary in its own words; a refused commit is a clean abort, not a crash", () => {
    const words = STORAGE_FAULT_PHASES.map((phase) => describeStorageFault({ transaction: 2, phase }, "acknowledge", true))
    expect(new Set(words).size).toBe(STORAGE_FAULT_PHASES.length)
    for (const [index, text] of words.entries()) {
      // A failed read strikes a read outside any transaction, not a numbered transaction.
      expect(text).toContain(STORAGE_FAULT_PHASES[index] === "readFails" ? "read 1 outside any transaction (acknowledge)" : "storage transaction 2 (acknowledge)")
    }
    expect(describeStorageFault({ transaction: 2, phase: "commitRefused" }, "acknowledge", true)).toMatch(/refuses to commit.*rolls back/)
    expect(isCrash({ transaction: 1, phase: "commitRefused" })).toBe(false)
  })
})
