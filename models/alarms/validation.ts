/**
 * Input checks shared by the mutations and dispatch (R8, R10, R20), each returning a reason or null.
 */
import type { Json } from "../../harness/Property.ts"
import { UNENCODABLE_PAYLOAD_KEY } from "./operations.ts"
import type { AlarmRef } from "./storageId.ts"

/**
 * Why a ref is invalid (a non-empty string tag and id, R8), or null. A JavaScript caller may pass a
 * number tag or id, which is invalid too.
 */
export const refProblem = (ref: AlarmRef): string | null =>
  typeof ref.tag !== "string" || ref.tag.length === 0
    ? "tag must be a non-empty string"
    : typeof ref.id !== "string" || ref.id.length === 0
    ? "id must be a non-empty string"
    : null

/** The stored repeat interval (rounded up), or the reason it is rejected (finite and >= the floor, R8). */
export const resolveRepeatEvery = (
  repeatEveryMs: number | undefined,
  minimumRepeatIntervalMs: number
): { readonly ok: true; readonly repeatEveryMs: number | null } | { readonly ok: false; readonly reason: string } => {
  if (repeatEveryMs === undefined) return { ok: true, repeatEveryMs: null }
  if (!Number.isFinite(repeatEveryMs) || repeatEveryMs < minimumRepeatIntervalMs) {
    return { ok: false, reason: `repeatEvery must be finite and at least ${minimumRepeatIntervalMs} ms` }
  }
  return { ok: true, repeatEveryMs: Math.ceil(repeatEveryMs) }
}

/** True when the payload holds the unencodable marker anywhere (see `UNENCODABLE_PAYLOAD_KEY`). */
export const isUnencodablePayload = (payload: Json): boolean => {
  if (payload === null || typeof payload !== "object") return false
  if (Array.isArray(payload)) return payload.some(isUnencodablePayload)
  const record = payload as { readonly [key: string]: Json }
  if (Object.hasOwn(record, UNENCODABLE_PAYLOAD_KEY)) return true
  return Object.values(record).some(isUnencodablePayload)
}

/** True for a valid progress cursor: a non-negative safe integer (R10). */
export const isValidProgress = (progress: number): boolean => Number.isSafeInteger(progress) && progress >= 0

/** True for a valid `runAt`: a whole epoch millisecond (safe integer); upstream rejects others as InvalidAlarmRefError. */
export const isValidRunAt = (runAtMs: number): boolean => Number.isSafeInteger(runAtMs)

/** Default `limit` of `processDueAlarms`. */
export const DEFAULT_PROCESS_DUE_ALARMS_LIMIT = 100

/** The dispatch limit, or why it is invalid (positive safe integer, R20). */
export const resolveLimit = (
  limit: number | undefined
): { readonly ok: true; readonly limit: number } | { readonly ok: false; readonly reason: string } => {
  const value = limit ?? DEFAULT_PROCESS_DUE_ALARMS_LIMIT
  return Number.isSafeInteger(value) && value > 0
    ? { ok: true, limit: value }
    : { ok: false, reason: "limit must be a positive safe integer" }
}

/**
 * A failure delay: finite and > 0, rounded up and floored at the minimum retry delay (R20, R24),
 * or why it is invalid. R20's prose could put "> 0" on the floored delay; seed 000's
 * `toFailureRescheduleMillis` decides it: the given duration is checked before it is rounded up and
 * floored, and an action's own delay goes through the same function (so a fraction rounds up too).
 */
export const resolveFailureDelay = (
  delayMs: number,
  minimumRetryDelayMs: number
): { readonly ok: true; readonly delayMs: number } | { readonly ok: false; readonly reason: string } =>
  Number.isFinite(delayMs) && delayMs > 0
    ? { ok: true, delayMs: Math.max(minimumRetryDelayMs, Math.ceil(delayMs)) }
    : { ok: false, reason: "retryFailedAfter must be a positive finite duration" }
