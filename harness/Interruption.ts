/**
 * Interrupting an operation of the system under test and observing whether the interruption took
 * effect, instead of waiting for the operation's fiber. `Fiber.interrupt` waits until the fiber ends,
 * so an implementation whose wait ignores cancellation (an uninterruptible region around a wait that
 * only another operation can end) would hang the harness, and the hang would be blamed on the adapter
 * with no requirement named. Here the harness signals the interruption, waits until the system is
 * quiet (its own probe, no sleep), gives the fiber a bounded number of scheduler turns to run its
 * finalizers, and then says whether it ended. A fiber that did not is reported as such, left running,
 * and never awaited: the run goes on (or stops at the failed check) without hanging.
 */
import { Effect, type Fiber } from "effect"
import { awaitCondition } from "./Quiescence.ts"

/** Scheduler turns an interrupted fiber gets, after the system is quiet, to finish its finalizers. */
export const INTERRUPT_SETTLE_TURNS = 8

/** Whether `fiber` has ended (its exit is known). */
export const hasEnded = (fiber: Fiber.Fiber<unknown, unknown>): boolean => fiber.pollUnsafe() !== undefined

/**
 * Asks `fiber` to stop, on behalf of the calling fiber, and returns at once (never waits for it).
 *
 * @example yield* signalInterrupt(checkout)
 */
export const signalInterrupt = (fiber: Fiber.Fiber<unknown, unknown>): Effect.Effect<void> =>
  Effect.withFiber((current) => {
    if (!hasEnded(fiber)) fiber.interruptUnsafe(current.id)
    return Effect.void
  })

/**
 * After an interruption was signalled: waits for `quiet` (the system has no I/O outstanding), then at
 * most `settleTurns` scheduler turns for `fiber` to end. True when it ended, false when it still runs:
 * it ignored the interruption, waiting for something only another operation can give. Never awaits
 * the fiber itself, so a fiber that never ends cannot hang the caller.
 *
 * @example const ended = yield* endedAfterInterrupt(checkout, awaitQuiet(tap))
 */
export const endedAfterInterrupt = <E>(
  fiber: Fiber.Fiber<unknown, unknown>,
  quiet: Effect.Effect<void, E>,
  settleTurns: number = INTERRUPT_SETTLE_TURNS
): Effect.Effect<boolean, E> =>
  Effect.gen(function*() {
    if (hasEnded(fiber)) return true
    yield* quiet
    return yield* awaitCondition(() => hasEnded(fiber), { maxTurns: settleTurns })
  })

/**
 * Signals the interruption of `fiber` and observes it (`endedAfterInterrupt`).
 *
 * @example if (!(yield* interruptObserved(checkout, quiet))) ignored.add(id)
 */
export const interruptObserved = <E>(
  fiber: Fiber.Fiber<unknown, unknown>,
  quiet: Effect.Effect<void, E>,
  settleTurns: number = INTERRUPT_SETTLE_TURNS
): Effect.Effect<boolean, E> => Effect.andThen(signalInterrupt(fiber), endedAfterInterrupt(fiber, quiet, settleTurns))
