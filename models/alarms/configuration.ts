/**
 * Schedule configuration (rules R1-R2): defaults captured when the service is built, overlaid by the
 * ambient per-call configuration reference, validated on every use, and the retry-delay curve.
 */

/** Configuration as a caller provides it; durations are milliseconds (fractions are rounded up). */
export interface ScheduleConfigurationInput {
  readonly minimumRetryDelayMs?: number
  readonly unchangedAttemptBudget?: number
  readonly parkedRetryDelayMs?: number
  readonly minimumRepeatIntervalMs?: number
}

/** A validated configuration: every field a safe integer within its bounds. */
export interface ResolvedScheduleConfiguration {
  readonly minimumRetryDelayMs: number
  readonly unchangedAttemptBudget: number
  readonly parkedRetryDelayMs: number
  readonly minimumRepeatIntervalMs: number
}

/** The two layers R1 overlays: what the service captured when built, and the current reference. */
export interface ConfigurationLayers {
  /** Captured from the configuration reference when the service was (re)built. */
  readonly captured: ScheduleConfigurationInput
  /** The configuration reference as seen by calls now (changed by the `configure` operation). */
  readonly ambient: ScheduleConfigurationInput
}

/** Lowest allowed and default `minimumRetryDelay`: one second. */
export const MIN_RETRY_DELAY_MS = 1_000
/** Default `unchangedAttemptBudget`. */
export const UNCHANGED_ATTEMPT_BUDGET = 8
/** Lowest allowed and default `parkedRetryDelay`: one hour. */
export const PARKED_RETRY_DELAY_MS = 3_600_000
/** Lowest allowed `minimumRepeatInterval`: one second. */
export const MIN_REPEAT_INTERVAL_MS = 1_000
/** Default `minimumRepeatInterval`: one minute. */
export const DEFAULT_MIN_REPEAT_INTERVAL_MS = 60_000

/** The outcome of resolving a configuration: the value, or why it is invalid. */
export type ConfigurationResolution =
  | { readonly ok: true; readonly configuration: ResolvedScheduleConfiguration }
  | { readonly ok: false; readonly reason: string }

const safeIntegerAtLeast = (value: number, minimum: number): boolean =>
  Number.isSafeInteger(value) && value >= minimum

/**
 * Overlays `ambient` on `captured`, fills defaults, rounds durations up to whole ms and validates (R1).
 *
 * @example resolveConfiguration({ captured: {}, ambient: {} }) // ok, 1000 / 8 / 3600000 / 60000
 */
export const resolveConfiguration = (layers: ConfigurationLayers): ConfigurationResolution => {
  const input = { ...layers.captured, ...layers.ambient }
  const minimumRetryDelayMs = Math.ceil(input.minimumRetryDelayMs ?? MIN_RETRY_DELAY_MS)
  const unchangedAttemptBudget = input.unchangedAttemptBudget ?? UNCHANGED_ATTEMPT_BUDGET
  const parkedRetryDelayMs = Math.ceil(input.parkedRetryDelayMs ?? PARKED_RETRY_DELAY_MS)
  const minimumRepeatIntervalMs = Math.ceil(input.minimumRepeatIntervalMs ?? DEFAULT_MIN_REPEAT_INTERVAL_MS)
  if (!safeIntegerAtLeast(minimumRetryDelayMs, MIN_RETRY_DELAY_MS)) {
    return { ok: false, reason: `minimumRetryDelay must be at least ${MIN_RETRY_DELAY_MS} ms` }
  }
  if (!safeIntegerAtLeast(unchangedAttemptBudget, 1)) {
    return { ok: false, reason: "unchangedAttemptBudget must be a safe integer of at least 1" }
  }
  if (!safeIntegerAtLeast(parkedRetryDelayMs, PARKED_RETRY_DELAY_MS)) {
    return { ok: false, reason: `parkedRetryDelay must be at least ${PARKED_RETRY_DELAY_MS} ms` }
  }
  if (!safeIntegerAtLeast(minimumRepeatIntervalMs, MIN_REPEAT_INTERVAL_MS)) {
    return { ok: false, reason: `minimumRepeatInterval must be at least ${MIN_REPEAT_INTERVAL_MS} ms` }
  }
  if (parkedRetryDelayMs < minimumRetryDelayMs) {
    return { ok: false, reason: "parkedRetryDelay must be at least minimumRetryDelay" }
  }
  return {
    ok: true,
    configuration: { minimumRetryDelayMs, unchangedAttemptBudget, parkedRetryDelayMs, minimumRepeatIntervalMs }
  }
}

/**
 * Delay before retry number `attempts` (R2): the parked delay when parked, else the base doubled per
 * attempt, capped at the parked delay.
 *
 * @example retryDelayMs(3, false, defaults) === 4_000; retryDelayMs(8, true, defaults) === 3_600_000
 */
export const retryDelayMs = (
  attempts: number,
  parked: boolean,
  configuration: ResolvedScheduleConfiguration,
  baseDelayMs: number = configuration.minimumRetryDelayMs
): number =>
  parked
    ? configuration.parkedRetryDelayMs
    : Math.min(configuration.parkedRetryDelayMs, baseDelayMs * 2 ** (attempts - 1))
