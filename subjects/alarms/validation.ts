/**
 * Pure validation and arithmetic of the alarms subject: configuration (R1), retry delays (R2),
 * references, payloads, cursors (R8, R10), repeat intervals and `processDueAlarms` options (R20).
 *
 * Each validator returns the validated value or throws an `Error` whose message names the problem;
 * the scheduler wraps the throw in the matching tagged error. No Effect runtime needed.
 */
import { DateTime, Duration, Schema } from "effect"
import type { AlarmPayload, AlarmRef, OnFailureAction, ResolvedScheduleConfiguration, ScheduleConfiguration } from "./api.ts"
import {
  DEFAULT_MIN_REPEAT_INTERVAL_MS,
  DEFAULT_PROCESS_DUE_ALARMS_LIMIT,
  UNCHANGED_ATTEMPT_BUDGET,
  MIN_REPEAT_INTERVAL_MS,
  MIN_RETRY_DELAY_MS,
  PARKED_RETRY_DELAY_MS
} from "./api.ts"

/** Milliseconds of a duration input, rounded up to a whole ms; throws on an invalid input. */
export const durationToCeilMs = (input: Duration.Input, field: string): number => {
  let ms: number
  try {
    ms = Duration.toMillis(input)
  } catch (cause) {
    throw new Error(`${field} is not a valid duration (${String(input)})`, { cause })
  }
  return Math.ceil(ms)
}

const safeIntegerAtLeast = (value: number, minimum: number, field: string): number => {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new Error(`${field} must be a safe integer >= ${minimum}, got ${value}`)
  }
  return value
}

/**
 * Validates a merged configuration (R1): durations rounded up to whole ms, then every field a safe
 * integer at least its floor, and `parkedRetryDelay >= minimumRetryDelay`.
 */
export const resolveScheduleConfiguration = (input: ScheduleConfiguration): ResolvedScheduleConfiguration => {
  const minimumRetryDelayMs = safeIntegerAtLeast(
    durationToCeilMs(input.minimumRetryDelay ?? MIN_RETRY_DELAY_MS, "minimumRetryDelay"),
    MIN_RETRY_DELAY_MS,
    "minimumRetryDelay (ms)"
  )
  const unchangedAttemptBudget = safeIntegerAtLeast(
    input.unchangedAttemptBudget ?? UNCHANGED_ATTEMPT_BUDGET,
    1,
    "unchangedAttemptBudget"
  )
  const parkedRetryDelayMs = safeIntegerAtLeast(
    durationToCeilMs(input.parkedRetryDelay ?? PARKED_RETRY_DELAY_MS, "parkedRetryDelay"),
    PARKED_RETRY_DELAY_MS,
    "parkedRetryDelay (ms)"
  )
  const minimumRepeatIntervalMs = safeIntegerAtLeast(
    durationToCeilMs(input.minimumRepeatInterval ?? DEFAULT_MIN_REPEAT_INTERVAL_MS, "minimumRepeatInterval"),
    MIN_REPEAT_INTERVAL_MS,
    "minimumRepeatInterval (ms)"
  )
  if (parkedRetryDelayMs < minimumRetryDelayMs) {
    throw new Error(`parkedRetryDelay (${parkedRetryDelayMs} ms) must be at least minimumRetryDelay (${minimumRetryDelayMs} ms)`)
  }
  return { minimumRetryDelayMs, unchangedAttemptBudget, parkedRetryDelayMs, minimumRepeatIntervalMs }
}

/**
 * R2: `parked ? parkedRetryDelay : min(parkedRetryDelay, base * 2^(attempts-1))`.
 * Defaults give 1, 2, 4, 8, 16, 32, 64 s, then 1 h.
 */
export const backoffRetryDelayMs = (
  attempts: number,
  parked: boolean,
  baseDelayMs: number,
  configuration: ResolvedScheduleConfiguration
): number =>
  parked
    ? configuration.parkedRetryDelayMs
    : Math.min(configuration.parkedRetryDelayMs, baseDelayMs * 2 ** (attempts - 1))

/** Validates a reference: tag and id non-empty strings (R8). */
export const validateAlarmRef = (input: AlarmRef): AlarmRef => {
  if (typeof input !== "object" || input === null) throw new Error("the alarm reference must be an object {tag, id}")
  if (typeof input.tag !== "string" || input.tag.length === 0) throw new Error("tag must be a non-empty string")
  if (typeof input.id !== "string" || input.id.length === 0) throw new Error("id must be a non-empty string")
  return { tag: input.tag, id: input.id }
}

/** Validates a progress cursor (R10): a non-negative safe integer. */
export const validateProgress = (progress: number): number => {
  if (!Number.isSafeInteger(progress) || progress < 0) {
    throw new Error(`progress must be a non-negative integer, got ${String(progress)}`)
  }
  return progress
}

/** Epoch ms of `runAt`; throws when it is not a DateTime. */
export const runAtToMs = (runAt: DateTime.Utc): number => {
  if (!DateTime.isDateTime(runAt)) throw new Error("runAt must be a DateTime.Utc")
  const ms = DateTime.toEpochMillis(runAt)
  if (!Number.isSafeInteger(ms)) throw new Error(`runAt must be a whole epoch millisecond, got ${ms}`)
  return ms
}

const isJson = Schema.is(Schema.Json)

/** JSON text of a payload; throws when it is not a JSON value. */
export const encodePayload = (payload: AlarmPayload): string => {
  if (!isJson(payload)) throw new Error("payload is not a JSON value")
  return JSON.stringify(payload)
}

/** R8: `repeatEvery` in whole ms (rounded up), or null; finite and at least `minimumRepeatIntervalMs`. */
export const strictRepeatEveryMs = (
  input: Duration.Input | undefined,
  configuration: ResolvedScheduleConfiguration
): number | null => {
  if (input === undefined) return null
  let ms: number
  try {
    ms = Duration.toMillis(input)
  } catch (cause) {
    throw new Error(`repeatEvery is not a valid duration (${String(input)})`, { cause })
  }
  if (!Number.isFinite(ms) || ms < configuration.minimumRepeatIntervalMs) {
    throw new Error(`repeatEvery must be finite and at least ${configuration.minimumRepeatIntervalMs} ms, got ${ms}`)
  }
  return Math.ceil(ms)
}

/** R20: the `limit` option, default 100, a positive safe integer. */
export const validateLimit = (limit: number | undefined): number => {
  const value = limit ?? DEFAULT_PROCESS_DUE_ALARMS_LIMIT
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`limit must be a positive safe integer, got ${String(value)}`)
  return value
}

/** R20/R24: a failure delay, finite and > 0, floored at `minimumRetryDelayMs`, in whole ms. */
export const validateFailureDelayMs = (input: Duration.Input, minimumRetryDelayMs: number): number => {
  let ms: number
  try {
    ms = Duration.toMillis(input)
  } catch (cause) {
    throw new Error(`retryFailedAfter is not a valid duration (${String(input)})`, { cause })
  }
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`retryFailedAfter must be finite and > 0, got ${ms}`)
  return Math.max(minimumRetryDelayMs, Math.ceil(ms))
}

/** The mode of an `onFailure` action. */
export const failureActionMode = (action: OnFailureAction): "retry" | "skip-and-advance-repeat" =>
  typeof action === "string" ? action : action.mode

/** The action's own `retryFailedAfter`, when it has one. */
export const failureActionDelay = (action: OnFailureAction): Duration.Input | undefined =>
  typeof action === "object" && action.mode === "retry" ? action.retryFailedAfter : undefined
