/**
 * `getAlarmStatus` (R28) and the observable projection of the state the property compares.
 */
import type { Json } from "../../harness/Property.ts"
import type { AlarmStatus } from "./results.ts"
import { type ModelState, type Provenance, readRow } from "./state.ts"

/** The status of one stored alarm, or null when it does not exist (R28; `retryAtMs` is the raw retry_at). */
export const statusOf = (state: ModelState, storageId: string): AlarmStatus | null => {
  const row = readRow(state.rows, storageId)
  return row === undefined
    ? null
    : { attempts: row.attempts, parked: row.parked, runAtMs: row.runAtMs, retryAtMs: row.retryAtMs }
}

/** A status prediction with the rules that decided it. */
export interface StatusPrediction {
  readonly storageId: string
  readonly status: AlarmStatus | null
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

/**
 * Predicted `getAlarmStatus` for every alarm the model knows (stored or removed), sorted by storage id.
 */
export const predictStatuses = (state: ModelState): ReadonlyArray<StatusPrediction> => {
  const ids = new Set([...Object.keys(state.rows), ...Object.keys(state.forgotten)])
  return [...ids].sort().map((storageId) => {
    const row = state.rows[storageId]
    const provenance: Provenance = row?.decidedBy ?? state.forgotten[storageId] ?? { rules: [], why: "never stored" }
    return { storageId, status: statusOf(state, storageId), rules: ["R28", ...provenance.rules], why: provenance.why }
  })
}

/** One stored row as an adapter can observe it (everything but the revision). */
export interface ObservableRow {
  readonly tag: string
  readonly alarmId: string
  readonly runAtMs: number
  readonly wakeAtMs: number
  readonly repeatEveryMs: number | null
  readonly payloadText: string
  /** False for a row written in an older layout that has no attempts row yet. */
  readonly hasAttemptsRow: boolean
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  readonly progress: number
}

/** The observable state: rows by storage id, and the platform alarm. */
export interface ObservableState {
  readonly rows: Readonly<Record<string, ObservableRow>>
  readonly platformAlarmMs: number | null
}

/** Projects the state onto what the implementation exposes through the adapter (JSON, keys sorted). */
export const observableState = (state: ModelState): ObservableState => {
  const rows: Record<string, ObservableRow> = {}
  for (const storageId of Object.keys(state.rows).sort()) {
    const row = readRow(state.rows, storageId)!
    rows[storageId] = {
      tag: row.tag,
      alarmId: row.alarmId,
      runAtMs: row.runAtMs,
      wakeAtMs: row.wakeAtMs,
      repeatEveryMs: row.repeatEveryMs,
      payloadText: row.payloadText,
      hasAttemptsRow: state.rows[storageId]!.attemptsRow !== null,
      attempts: row.attempts,
      parked: row.parked,
      retryAtMs: row.retryAtMs,
      progress: row.progress
    }
  }
  return { rows, platformAlarmMs: state.platformAlarmMs }
}

/** The observable state as `Json` (for `StepRecord.modelState`). */
export const observableJson = (state: ModelState): Json => observableState(state) as unknown as Json
