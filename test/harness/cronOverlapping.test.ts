/**
 * `harness/Overlapping.ts` (written for the cron subject's concurrent bootstraps): operations pause at
 * `begin`, the first in the order runs to `hold` and stays there while the others are released, so
 * its writes come first and every other transaction is open before it commits;
 * operations without hook points just run; a bad order is refused.
 */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { hookPoint, makeScriptedHooks } from "../../harness/HookPoints.ts"
import { runOverlapping } from "../../harness/Overlapping.ts"

const POINTS = { begin: "t.begin", hold: "t.hold" }

const operation = (name: string, log: Array<string>, hooks = true) => ({
  label: name,
  effect: Effect.gen(function*() {
    if (hooks) yield* hookPoint(POINTS.begin)
    log.push(`${name} begun`)
    // A statement's round trip: the harness re-arms `hold` while the released operation is on its way.
    for (let turn = 0; turn < 5; turn++) yield* Effect.yieldNow
    log.push(`${name} writes`)
    if (hooks) yield* hookPoint(POINTS.hold)
    log.push(`${name} commits`)
    return name
  })
})

describe("runOverlapping", () => {
  it("holds the first operation's writes open while the others run, in the generated order", async () => {
    for (const order of [[0, 1, 2], [2, 0, 1], [1, 2, 0]]) {
      const log: Array<string> = []
      const names = ["a", "b", "c"]
      const { exits, openTogether } = await Effect.runPromise(Effect.gen(function*() {
        return yield* runOverlapping(yield* makeScriptedHooks, names.map((name) => operation(name, log)), order, POINTS)
      }))
      expect(openTogether).toBe(3)
      expect(exits.map((exit) => Exit.isSuccess(exit) && exit.value)).toEqual(names)
      const first = names[order[0]!]!
      const others = names.filter((name) => name !== first)
      // The first writes before any other writes, and every other transaction is open before it commits.
      for (const other of others) {
        expect(log.indexOf(`${first} writes`), order.join()).toBeLessThan(log.indexOf(`${other} writes`))
        expect(log.indexOf(`${other} begun`), order.join()).toBeLessThan(log.indexOf(`${first} commits`))
      }
      expect(log.filter((entry) => entry.endsWith("commits"))).toHaveLength(3)
    }
  })

  it("runs operations without hook points to completion instead of waiting for them", async () => {
    const log: Array<string> = []
    const { exits, openTogether } = await Effect.runPromise(Effect.gen(function*() {
      return yield* runOverlapping(yield* makeScriptedHooks, [operation("a", log, false), operation("b", log, false)], [1, 0], POINTS)
    }))
    expect(exits.every(Exit.isSuccess)).toBe(true)
    expect(log).toHaveLength(6)
    // Nothing was held open: the run says so rather than claiming the overlap it asked for.
    expect(openTogether).toBe(0)
  })

  it("pauses at whichever of several points an operation reaches (the boundary's, without hook points)", async () => {
    const log: Array<string> = []
    const { openTogether } = await Effect.runPromise(Effect.gen(function*() {
      const points = { begin: ["x.begin", POINTS.begin], hold: ["x.hold", POINTS.hold] }
      return yield* runOverlapping(yield* makeScriptedHooks, [operation("a", log), operation("b", log)], [1, 0], points)
    }))
    expect(openTogether).toBe(2)
    expect(log.indexOf("a begun")).toBeLessThan(log.indexOf("b commits"))
    expect(log.indexOf("b writes")).toBeLessThan(log.indexOf("a writes"))
  })

  it("waits, before the first commits, for what whileFirstHolds waits for, and reports its answer", async () => {
    const log: Array<string> = []
    const { othersWaited } = await Effect.runPromise(Effect.gen(function*() {
      // Waits until the other operation has ended: only then may the first commit.
      const whileFirstHolds = (first: number, ended: (index: number) => boolean) =>
        Effect.gen(function*() {
          for (let turn = 0; turn < 100 && !ended(0); turn++) yield* Effect.yieldNow
          log.push(`while ${first} holds, a ended: ${ended(0)}`)
          return ended(0)
        })
      return yield* runOverlapping(yield* makeScriptedHooks, [operation("a", log), operation("b", log)], [1, 0], POINTS, whileFirstHolds)
    }))
    expect(othersWaited).toBe(true)
    // The second committed while the first held its writes open, and the first committed after the wait.
    expect(log.indexOf("a commits")).toBeLessThan(log.indexOf("while 1 holds, a ended: true"))
    expect(log.indexOf("while 1 holds, a ended: true")).toBeLessThan(log.indexOf("b commits"))
  })

  it("does not ask whileFirstHolds when the first never held (no hook points)", async () => {
    let asked = 0
    const { othersWaited } = await Effect.runPromise(Effect.gen(function*() {
      return yield* runOverlapping(yield* makeScriptedHooks, [operation("a", [], false), operation("b", [], false)], [0, 1], POINTS, () =>
        Effect.sync(() => ++asked > 0))
    }))
    expect(asked).toBe(0)
    expect(othersWaited).toBe(false)
  })

  it("refuses an order that is not a permutation", async () => {
    const exit = await Effect.runPromiseExit(Effect.gen(function*() {
      return yield* runOverlapping(yield* makeScriptedHooks, [operation("a", []), operation("b", [])], [0, 0], POINTS)
    }))
    expect(Exit.isFailure(exit)).toBe(true)
  })
})
