/**
 * The model's tick writes and settling writes (N3, N4, N7, N8): pure functions over the state, each
 * the effect of one storage transaction's statements.
 */
import { CRON_PREFIX } from "./fields.ts"
import { nextInstant } from "./next.ts"
import type { CronModelState, InFlightTick, ModelEntry, ModelRow } from "./state.ts"

/** Bound on rows one claim takes (scenarios never hold more pending rows). */
export const CLAIM_LIMIT = 16

/** `next(now)` of an entry; a schedule with no instant within the scan bound is a model error. */
export const nextOf = (entry: ModelEntry, nowMs: number): number => {
  const next = nextInstant(entry.schedule, nowMs)
  if (next === null) throw new Error(`model: ${entry.key} has no instant within the scan bound after ${nowMs}`)
  return next
}

/** A fresh tick id (N3) and the state with its stand-in uuid consumed. */
export const freshTickId = (state: CronModelState, nowMs: number, dueAtMs: number): [string, CronModelState] => [
  `v1.${nowMs}.${Math.max(dueAtMs, nowMs) + state.timing.retryWindowMs}.m${state.uuids}`,
  { ...state, uuids: state.uuids + 1 }
]

/** What `writeTicks` did: the state, and whether an entry already ticked (insert-or-ignore hit). */
export interface WriteResult {
  readonly state: CronModelState
  readonly ignored: boolean
}

/** `writeTicks(ref, entries, now)` (N4): one row per entry unless it already ticks. */
export const writeTicks = (start: CronModelState, actorId: string, entries: ReadonlyArray<ModelEntry>, nowMs: number): WriteResult => {
  let state = start
  let ignored = false
  for (const entry of entries) {
    const dueAtMs = nextOf(entry, nowMs)
    const [intentId, next] = freshTickId(state, nowMs, dueAtMs)
    state = next
    if (state.rows.some((row) => row.actorId === actorId && row.timerKey === entry.key)) {
      ignored = true
      continue
    }
    const row: ModelRow = {
      actorId, timerKey: entry.key, intentId, dueAtMs, scheduledAtMs: dueAtMs,
      command: entry.command, payload: entry.payload, attempts: 0, lastError: null, ambiguous: false
    }
    state = { ...state, rows: [...state.rows, row] }
  }
  return { state, ignored }
}

/** Index of the row a claim still holds (fenced on due_at = claimed_until, N8), or -1. */
export const fencedRowIndex = (state: CronModelState, tick: InFlightTick): number =>
  state.rows.findIndex((row) => row.intentId === tick.intentId && row.dueAtMs === tick.claimedUntilMs)

/** Deletes the claimed row under its fence; the state unchanged when the claim was lost. */
export const deleteFenced = (state: CronModelState, tick: InFlightTick): CronModelState => {
  const index = fencedRowIndex(state, tick)
  return index < 0 ? state : { ...state, rows: state.rows.filter((_, position) => position !== index) }
}

/** Sets the claimed row's due_at under its fence (release with backoff, N7). */
export const postponeFenced = (state: CronModelState, tick: InFlightTick, dueAtMs: number): CronModelState => {
  const index = fencedRowIndex(state, tick)
  return index < 0 ? state : { ...state, rows: state.rows.map((row, position) => (position === index ? { ...row, dueAtMs } : row)) }
}

/**
 * Rewrites the claimed row in place under its fence (N8): fresh id, the entry's command and payload,
 * due_at = scheduled_at = next(now), attempts 0, no error, not ambiguous. The id is drawn even when
 * the fence fails, as an implementation draws it before its UPDATE.
 */
export const rewriteFenced = (start: CronModelState, tick: InFlightTick, entry: ModelEntry, nowMs: number): CronModelState => {
  const dueAtMs = nextOf(entry, nowMs)
  const [intentId, state] = freshTickId(start, nowMs, dueAtMs)
  const index = fencedRowIndex(state, tick)
  if (index < 0) return state
  const rewritten: ModelRow = {
    ...state.rows[index]!, intentId, command: entry.command, payload: entry.payload, dueAtMs, scheduledAtMs: dueAtMs,
    attempts: 0, lastError: null, ambiguous: false
  }
  return { ...state, rows: state.rows.map((row, position) => (position === index ? rewritten : row)) }
}

/** Whether a row is a cron tick (N1: application intents may not use the prefix). */
export const isTick = (row: ModelRow): boolean => row.timerKey.startsWith(CRON_PREFIX)
