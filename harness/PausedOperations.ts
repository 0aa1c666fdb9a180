/**
 * Paused operations one step at a time, for races whose choreography depends on where each operation
 * is: start an operation paused at a hook point, release it to its next hook point (or to its end),
 * and learn whether it paused or finished. Unlike `Interleaving.runInterleaved`, an operation that
 * never reaches its hook point (it has no such hook, or its path skips it) does not hang the run: the
 * helpers return "finished" and the caller picks the order that really happened. Built on the
 * scripted controller of `HookPoints.ts`; no sleeps.
 *
 * @example
 * ```ts
 * const hooks = yield* makeScriptedHooks
 * const sweep = yield* startPaused(hooks, "sweep", "content.afterReferenceScan", store.sweep(true))
 * if (sweep.paused) yield* runCompetitor
 * yield* releaseTo(hooks, sweep, undefined)
 * ```
 */
import { Effect, type Exit, Fiber } from "effect"
import { labelled, type ScriptedHooks, withScriptedHooks } from "./HookPoints.ts"

/** An operation started under the scripted controller. */
export interface StartedOperation<A, E> {
  readonly label: string
  readonly fiber: Fiber.Fiber<A, E>
  /** Whether it is paused at a hook point right now (false: it finished). */
  readonly paused: boolean
}

/** Waits until `label` pauses at its armed hook or its fiber ends; true when paused. */
export const pausedOrDone = <A, E>(hooks: ScriptedHooks, label: string, fiber: Fiber.Fiber<A, E>): Effect.Effect<boolean> =>
  Effect.raceFirst(Effect.as(hooks.awaitPaused(label), true), Effect.as(Fiber.await(fiber), false))

/** Starts `effect` as operation `label`, paused at `hook` or the first of several (or finished when it never gets there). */
export const startPaused = <A, E, R>(hooks: ScriptedHooks, label: string, hook: string | ReadonlyArray<string>, effect: Effect.Effect<A, E, R>): Effect.Effect<StartedOperation<A, E>, never, R> =>
  Effect.gen(function*() {
    yield* hooks.pauseAt(label, hook)
    const fiber = yield* Effect.forkChild(withScriptedHooks(hooks, labelled(label, effect)))
    return { label, fiber, paused: yield* pausedOrDone(hooks, label, fiber) }
  })

/**
 * Releases a paused operation and lets it run to `nextHook` (paused there again) or, when `nextHook` is
 * undefined, on without waiting. The next pause is armed right after the release, before the released
 * fiber runs again.
 */
export const releaseTo = <A, E>(hooks: ScriptedHooks, operation: StartedOperation<A, E>, nextHook: string | ReadonlyArray<string> | undefined): Effect.Effect<StartedOperation<A, E>> =>
  Effect.gen(function*() {
    if (!operation.paused) return operation
    yield* hooks.release(operation.label)
    if (nextHook === undefined) return { ...operation, paused: false }
    yield* hooks.pauseAt(operation.label, nextHook)
    return { ...operation, paused: yield* pausedOrDone(hooks, operation.label, operation.fiber) }
  })

/** Releases `operation` (if paused) and waits for its end. */
export const finish = <A, E>(hooks: ScriptedHooks, operation: StartedOperation<A, E>): Effect.Effect<Exit.Exit<A, E>> =>
  Effect.andThen(operation.paused ? hooks.release(operation.label) : Effect.void, Fiber.await(operation.fiber))
