/**
 * Schedule configuration (R1) and the retry-delay curve (R2).
 */
import { Duration, Effect } from "effect"
import {
  DEFAULT_MIN_REPEAT_INTERVAL_MS,
  InvalidScheduleConfigurationError,
  MIN_REPEAT_INTERVAL_MS,
  MIN_RETRY_DELAY_MS,
  PARKED_RETRY_DELAY_MS,
  ScheduleConfiguration,
  UNCHANGED_ATTEMPT_BUDGET
} from "../../subjects/alarms/api.ts"
import type { ResolvedScheduleConfiguration } from "../../subjects/alarms/api.ts"

/** Rounds a duration up to whole milliseconds; throws on input Duration cannot read. */
export const ceilMillis = (input: Duration.Input): number => Math.ceil(Duration.toMillis(input))

const requireSafeAtLeast = (name: string, value: number, minimum: number): number => {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new Error(`${name} must be a safe integer >= ${minimum}, got ${value}`)
  }
  return value
}

/** Validates a configuration that already has the build-time defaults overlaid. Throws on violation. */
const resolveUnsafe = (input: ScheduleConfiguration): ResolvedScheduleConfiguration => {
  const minimumRetryDelayMs = requireSafeAtLeast(
    "minimumRetryDelay", ceilMillis(input.minimumRetryDelay ?? MIN_RETRY_DELAY_MS), MIN_RETRY_DELAY_MS)
  const unchangedAttemptBudget = requireSafeAtLeast(
    "unchangedAttemptBudget", input.unchangedAttemptBudget ?? UNCHANGED_ATTEMPT_BUDGET, 1)
  const parkedRetryDelayMs = requireSafeAtLeast(
    "parkedRetryDelay", ceilMillis(input.parkedRetryDelay ?? PARKED_RETRY_DELAY_MS), PARKED_RETRY_DELAY_MS)
  const minimumRepeatIntervalMs = requireSafeAtLeast(
    "minimumRepeatInterval",
    ceilMillis(input.minimumRepeatInterval ?? DEFAULT_MIN_REPEAT_INTERVAL_MS),
    MIN_REPEAT_INTERVAL_MS
  )
  if (parkedRetryDelayMs < minimumRetryDelayMs) {
    throw new Error("parkedRetryDelay must be at least minimumRetryDelay")
  }
  return { minimumRetryDelayMs, unchangedAttemptBudget, parkedRetryDelayMs, minimumRepeatIntervalMs }
}

/**
 * Reads the per-call `ScheduleConfiguration` reference, overlays it on the build-time defaults and
 * validates the result (R1).
 */
export const resolveConfiguration = (
  defaults: ScheduleConfiguration
): Effect.Effect<ResolvedScheduleConfiguration, InvalidScheduleConfigurationError> =>
  Effect.gen(function*() {
    const overlay = yield* ScheduleConfiguration
    const merged: ScheduleConfiguration = { ...defaults, ...overlay }
    return yield* Effect.try({
      try: () => resolveUnsafe(merged),
      catch: (cause) => new InvalidScheduleConfigurationError({ cause })
    })
  })

/**
 * R2: `parked ? parkedRetryDelay : min(parkedRetryDelay, base * 2^(attempts-1))`, in milliseconds.
 */
export const retryDelayMs = (
  attempts: number,
  parked: boolean,
  configuration: ResolvedScheduleConfiguration,
  baseMs: number = configuration.minimumRetryDelayMs
): number =>
  parked
    ? configuration.parkedRetryDelayMs
    : Math.min(configuration.parkedRetryDelayMs, baseMs * 2 ** (attempts - 1))
