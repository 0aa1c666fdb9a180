/**
 * Pure input checks of scheduling and dispatch (R8, R10, R20), each failing with its tagged error.
 */
import { Duration, Effect } from "effect"
import {
  DEFAULT_PROCESS_DUE_ALARMS_LIMIT,
  InvalidAlarmPayloadError,
  InvalidAlarmRefError,
  InvalidProcessDueAlarmsOptionsError,
  InvalidRepeatEveryError
} from "../../subjects/alarms/api.ts"
import type { AlarmRef } from "../../subjects/alarms/api.ts"

/** The storage key of a logical alarm (upstream's format). Throws on unencodable text. */
export const storageIdOf = (ref: AlarmRef): string =>
  `effect-cf-alarm:${encodeURIComponent(ref.tag)}:${encodeURIComponent(ref.id)}`

/** Checks a reference (non-empty string tag and id) and returns its storage key. */
export const validateRef = (ref: AlarmRef): Effect.Effect<string, InvalidAlarmRefError> =>
  Effect.try({
    try: () => {
      if (typeof ref?.tag !== "string" || ref.tag.length === 0) throw new Error("tag must be a non-empty string")
      if (typeof ref.id !== "string" || ref.id.length === 0) throw new Error("id must be a non-empty string")
      return storageIdOf(ref)
    },
    catch: (cause) => new InvalidAlarmRefError({ cause })
  })

/** `repeatEvery` must be finite and >= the floor; stored rounded up to whole ms (null when absent). */
export const validateRepeatEvery = (
  input: Duration.Input | undefined,
  minimumMs: number
): Effect.Effect<number | null, InvalidRepeatEveryError> =>
  input === undefined ? Effect.succeed(null) : Effect.try({
    try: () => {
      const millis = Duration.toMillis(input)
      if (!Number.isFinite(millis) || millis < minimumMs) {
        throw new Error(`repeatEvery must be finite and at least ${minimumMs} ms`)
      }
      return Math.ceil(millis)
    },
    catch: (cause) => new InvalidRepeatEveryError({ cause })
  })

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Throws unless `value` is a JSON value (finite numbers, plain objects, dense arrays, no cycles). */
const assertJson = (value: unknown, seen: Set<object>, depth: number): void => {
  if (depth > 10_000) throw new Error("payload nests too deeply")
  if (value === null || typeof value === "string" || typeof value === "boolean") return
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("payload numbers must be finite")
    return
  }
  if (typeof value !== "object") throw new Error(`payload cannot hold a ${typeof value}`)
  if (seen.has(value)) throw new Error("payload has a cycle")
  seen.add(value)
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) throw new Error("payload arrays must be dense")
      assertJson(value[index], seen, depth + 1)
    }
  } else {
    if (!isPlainObject(value)) throw new Error("payload objects must be plain objects")
    for (const key of Object.keys(value)) assertJson((value as Record<string, unknown>)[key], seen, depth + 1)
  }
  seen.delete(value)
}

/** Encodes a payload as JSON text, failing with `InvalidAlarmPayloadError` when it is not JSON. */
export const encodePayload = (payload: unknown): Effect.Effect<string, InvalidAlarmPayloadError> =>
  Effect.try({
    try: () => {
      assertJson(payload, new Set(), 0)
      return JSON.stringify(payload)
    },
    catch: (cause) => new InvalidAlarmPayloadError({ cause })
  })

/** R10: a progress cursor, when given, is a non-negative safe integer. */
export const validateProgress = (progress: number | undefined): Effect.Effect<void, InvalidAlarmRefError> =>
  progress === undefined || (Number.isSafeInteger(progress) && progress >= 0)
    ? Effect.void
    : Effect.fail(new InvalidAlarmRefError({ cause: new Error(`progress must be a non-negative integer, got ${progress}`) }))

/** R20: `limit` is a positive safe integer (default 100). */
export const validateLimit = (limit: number | undefined): Effect.Effect<number, InvalidProcessDueAlarmsOptionsError> =>
  limit === undefined
    ? Effect.succeed(DEFAULT_PROCESS_DUE_ALARMS_LIMIT)
    : Number.isSafeInteger(limit) && limit > 0
    ? Effect.succeed(limit)
    : Effect.fail(new InvalidProcessDueAlarmsOptionsError({ cause: new Error(`limit must be a positive safe integer, got ${limit}`) }))

/** A failure retry delay: finite and > 0, rounded up and floored at `minimumMs` (R20, R24). */
export const validateFailureDelay = (
  input: Duration.Input,
  minimumMs: number
): Effect.Effect<number, InvalidProcessDueAlarmsOptionsError> =>
  Effect.try({
    try: () => {
      const millis = Duration.toMillis(input)
      if (!Number.isFinite(millis) || millis <= 0) throw new Error("retryFailedAfter must be a positive finite duration")
      return Math.max(minimumMs, Math.ceil(millis))
    },
    catch: (cause) => new InvalidProcessDueAlarmsOptionsError({ cause })
  })
