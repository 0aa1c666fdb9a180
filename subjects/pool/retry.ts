/**
 * The pre-statement retry helper (P7): retries only pool refusals, exponentially from 10 ms and
 * capped at 250 ms, on Effect's `Clock` (so virtual time drives it under the harness).
 */
import { Duration, Effect, Schedule } from "effect"

/** First retry delay. */
export const RETRY_BASE_MS = 10

/** Longest retry delay. */
export const RETRY_CAP_MS = 250

/** The delay before retry `attempt` (1-based): min(10 * 2^(attempt-1), 250) ms. */
export const retryDelayMs = (attempt: number): number => Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_CAP_MS)

/** The shipped schedule: exponential from 10 ms, capped at 250 ms, unbounded in attempts. */
export const refusalSchedule: Schedule.Schedule<Duration.Duration> = Schedule.min([
  Schedule.exponential(Duration.millis(RETRY_BASE_MS)),
  Schedule.spaced(Duration.millis(RETRY_CAP_MS))
])

/**
 * Builds `retryPoolRefusal` from a refusal predicate and a schedule.
 *
 * @example const retry = makeRetryPoolRefusal(isPoolRefusal, refusalSchedule)
 */
export const makeRetryPoolRefusal = (
  isRefusal: (cause: unknown) => boolean,
  schedule: Schedule.Schedule<unknown>
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(effect, { schedule: schedule as Schedule.Schedule<unknown, E>, while: (error: E) => isRefusal(error) })
