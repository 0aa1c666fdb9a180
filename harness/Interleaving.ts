/**
 * Interleavings as generated data. Concurrent operations each pause at a named hook point; the
 * schedule is the order in which they are released, a permutation drawn by fast-check. Because the
 * order is ordinary data it shrinks (toward the identity order) and replays from the token, unlike
 * `fc.scheduler()`, whose interleaving is never shrunk. One pause per operation makes the schedule a
 * permutation; for step-by-step schedules where every hook point is a scheduling point (uniform or
 * PCT, with a stated bound), see `StepScheduler.ts`.
 */
import { Effect, Exit, Fiber } from "effect"
import * as fc from "fast-check"
import { labelled, type ScriptedHooks, withScriptedHooks } from "./HookPoints.ts"

/** One concurrent operation: runs `effect` as `label`, pausing at hook `pauseAt`. */
export interface ConcurrentOperation<A, E, R> {
  readonly label: string
  readonly pauseAt: string
  readonly effect: Effect.Effect<A, E, R>
}

/** A release order over `count` operations: a permutation of 0..count-1 that shrinks toward 0,1,2,... */
export const releaseOrderArbitrary = (count: number): fc.Arbitrary<ReadonlyArray<number>> =>
  fc.array(fc.nat({ max: Math.max(0, count - 1) }), { minLength: count, maxLength: count }).map((picks) => {
    const remaining = Array.from({ length: count }, (_, index) => index)
    return picks.map((pick) => remaining.splice(pick % remaining.length, 1)[0]!)
  })

/** Checks that `order` is a permutation of 0..count-1 (a corrupt replayed schedule is refused). */
export const isReleaseOrder = (order: ReadonlyArray<number>, count: number): boolean =>
  order.length === count && new Set(order).size === count && order.every((index) => Number.isInteger(index) && index >= 0 && index < count)

/**
 * Starts every operation, waits until each is paused at its hook, then releases them one at a time in
 * `order`, waiting for each released operation to finish or to block before releasing the next.
 * Returns each operation's exit, in the operations' original order.
 *
 * `settle` decides when a released operation has "moved on": by default, when its fiber finished;
 * with `waitForCompletion: false` the next release follows immediately (for operations that block on
 * each other's locks, which is what truly concurrent transactions do).
 */
export const runInterleaved = <A, E, R>(
  hooks: ScriptedHooks,
  operations: ReadonlyArray<ConcurrentOperation<A, E, R>>,
  order: ReadonlyArray<number>,
  options?: { readonly waitForCompletion?: boolean }
): Effect.Effect<ReadonlyArray<Exit.Exit<A, E>>, never, R> =>
  Effect.gen(function*() {
    if (!isReleaseOrder(order, operations.length)) {
      return yield* Effect.die(new RangeError(`release order ${JSON.stringify(order)} is not a permutation of ${operations.length} operations`))
    }
    for (const operation of operations) yield* hooks.pauseAt(operation.label, operation.pauseAt)
    const fibers: Array<Fiber.Fiber<A, E>> = []
    for (const operation of operations) {
      fibers.push(yield* Effect.forkChild(withScriptedHooks(hooks, labelled(operation.label, operation.effect))))
    }
    for (const operation of operations) yield* hooks.awaitPaused(operation.label)
    const waitForCompletion = options?.waitForCompletion ?? true
    for (const index of order) {
      yield* hooks.release(operations[index]!.label)
      if (waitForCompletion) yield* Fiber.await(fibers[index]!)
    }
    const exits: Array<Exit.Exit<A, E>> = []
    for (const fiber of fibers) exits.push(yield* Fiber.await(fiber))
    return exits
  })
