/**
 * One virtual clock per run, on Effect's `TestClock`. Implementations read time through `Clock`,
 * so they see virtual time; the property advances it explicitly, by an amount, to an absolute time,
 * or to the next deadline the model knows about ("advance until idle" says why it stopped).
 */
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

/** Where every run's virtual time starts: 2026-01-01T00:00:00.000Z. */
export const VIRTUAL_EPOCH_MS = Date.UTC(2026, 0, 1)

/** Upper bound of one jump, so a generated jump cannot overflow safe integers: 400 days. */
export const MAX_JUMP_MS = 400 * 24 * 3_600_000

/** Runs `effect` on a fresh TestClock set to `VIRTUAL_EPOCH_MS`. */
export const withVirtualTime = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.andThen(TestClock.setTime(VIRTUAL_EPOCH_MS), effect).pipe(Effect.provide(TestClock.layer()))

/** The current virtual time in epoch milliseconds. */
export const nowMs: Effect.Effect<number> = Clock.currentTimeMillis

/** Advances virtual time by `deltaMs` (a non-negative safe integer, at most `MAX_JUMP_MS`). */
export const advanceByMs = (deltaMs: number): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!Number.isSafeInteger(deltaMs) || deltaMs < 0 || deltaMs > MAX_JUMP_MS) {
      return Effect.die(new RangeError(`advanceByMs: ${deltaMs} is not an integer in [0, ${MAX_JUMP_MS}]`))
    }
    return TestClock.adjust(deltaMs)
  })

/** Moves virtual time forward to `epochMs`; moving backwards is a programming error (time never goes back). */
export const advanceToMs = (epochMs: number): Effect.Effect<void> =>
  Effect.flatMap(nowMs, (now) => (epochMs <= now ? Effect.void : advanceByMs(epochMs - now)))

/** Why `advanceToNextDeadline` stopped. */
export type AdvanceOutcome =
  | { readonly reason: "deadline"; readonly fromMs: number; readonly toMs: number }
  | { readonly reason: "already-due"; readonly atMs: number }
  | { readonly reason: "idle"; readonly atMs: number }

/**
 * Advances to the earliest of `deadlinesMs` that lies in the future. Says why it stopped: it reached a
 * deadline, a deadline was already due (no move), or there was none (idle: nothing left to wake).
 */
export const advanceToNextDeadline = (deadlinesMs: ReadonlyArray<number>): Effect.Effect<AdvanceOutcome> =>
  Effect.flatMap(nowMs, (now): Effect.Effect<AdvanceOutcome> => {
    if (deadlinesMs.length === 0) return Effect.succeed({ reason: "idle", atMs: now })
    const next = Math.min(...deadlinesMs)
    if (next <= now) return Effect.succeed({ reason: "already-due", atMs: now })
    return Effect.as(advanceToMs(next), { reason: "deadline", fromMs: now, toMs: next })
  })

/** A layer with a TestClock already set to the virtual epoch, for tests that build their own runtime. */
export const virtualClockLayer: Layer.Layer<never> = Layer.effectDiscard(TestClock.setTime(VIRTUAL_EPOCH_MS)).pipe(
  Layer.provideMerge(TestClock.layer())
) as Layer.Layer<never>
