/**
 * `harness/Interruption.ts`: the harness interrupts an operation and observes whether it ended, never
 * waiting on the fiber, so a wait that ignores cancellation is reported instead of hanging the run.
 */
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { endedAfterInterrupt, hasEnded, interruptObserved, signalInterrupt } from "../../harness/Interruption.ts"

const quiet = Effect.yieldNow

describe("interrupting and observing", () => {
  it("an interruptible wait ends: true, and the fiber's exit is an interruption", async () => {
    const result = await Effect.runPromise(Effect.gen(function*() {
      const never = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkDetach(Deferred.await(never))
      yield* Effect.yieldNow
      const ended = yield* interruptObserved(fiber, quiet)
      return { ended, interrupted: (yield* Fiber.await(fiber))._tag === "Failure" }
    }))
    expect(result).toEqual({ ended: true, interrupted: true })
  })

  it("an uninterruptible wait is reported as still running (false), not awaited, and ends once its wait is over", async () => {
    const result = await Effect.runPromise(Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkDetach(Effect.uninterruptible(Deferred.await(gate)))
      yield* Effect.yieldNow
      const ended = yield* interruptObserved(fiber, quiet, 4)
      const stillRunning = !hasEnded(fiber)
      yield* Deferred.succeed(gate, undefined)
      const endedLater = yield* endedAfterInterrupt(fiber, quiet)
      return { ended, stillRunning, endedLater }
    }))
    expect(result).toEqual({ ended: false, stillRunning: true, endedLater: true })
  })

  it("finalizers that take a few scheduler turns still count as ending", async () => {
    const ended = await Effect.runPromise(Effect.gen(function*() {
      const never = yield* Deferred.make<void>()
      const slowFinalizer = Effect.gen(function*() {
        for (let turn = 0; turn < 3; turn++) yield* Effect.yieldNow
      })
      const fiber = yield* Effect.forkDetach(Effect.onInterrupt(Deferred.await(never), () => slowFinalizer))
      yield* Effect.yieldNow
      return yield* interruptObserved(fiber, quiet)
    }))
    expect(ended).toBe(true)
  })

  it("signalling an ended fiber does nothing and it counts as ended", async () => {
    const ended = await Effect.runPromise(Effect.gen(function*() {
      const fiber = yield* Effect.forkDetach(Effect.succeed(1))
      yield* Fiber.await(fiber)
      yield* signalInterrupt(fiber)
      return { exit: (yield* Fiber.await(fiber))._tag, ended: yield* endedAfterInterrupt(fiber, quiet) }
    }))
    expect(ended).toEqual({ exit: "Success", ended: true })
  })
})
