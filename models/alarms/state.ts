/**
 * The model's state: the rows that matter (`scheduled_alarms` joined with `alarm_attempts`), the
 * platform alarm, the configuration layers and the reporter log. Plain JSON, never mutated in place.
 */
import type { Json } from "../../harness/Property.ts"
import type { ConfigurationLayers, ScheduleConfigurationInput } from "./configuration.ts"
import { storageIdOf } from "./storageId.ts"

/** Rules and a sentence saying which rule decided a value (attribution for explanations). */
export interface Provenance {
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

/**
 * An `alarm_attempts` row. `revision` is abstract: a counter unique per write (upstream a random uuid);
 * only equality matters and it is never observable.
 */
export interface AttemptsRow {
  readonly revision: number
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  readonly progress: number
}

/** A `scheduled_alarms` row with its attempts row (null for rows written by the older schema). */
export interface ScheduledRow {
  readonly storageId: string
  readonly alarmId: string
  readonly tag: string
  readonly runAtMs: number
  readonly wakeAtMs: number
  readonly repeatEveryMs: number | null
  /** The stored JSON text of the payload. */
  readonly payloadText: string
  readonly attemptsRow: AttemptsRow | null
  /** Which rules decided this row's current attempt state. */
  readonly decidedBy: Provenance
}

/** One call of the `AlarmReporter`: content-free, plus whether the reporter itself failed (swallowed). */
export interface ReporterCall {
  readonly attempts: number
  readonly retryAtMs: number
  readonly reporterFailed: boolean
}

/** The whole model state. */
export interface ModelState {
  /** Rows keyed by storage id. */
  readonly rows: Readonly<Record<string, ScheduledRow>>
  /** The platform alarm (epoch ms) or null when absent. */
  readonly platformAlarmMs: number | null
  readonly configuration: ConfigurationLayers
  /** Next abstract revision number; revision 0 means "no attempts row" (upstream: ''). */
  readonly nextRevision: number
  /** Every reporter call so far, in order. */
  readonly reporterLog: ReadonlyArray<ReporterCall>
  /** Tags of the typed alarm definitions (R29), or null when the untyped scheduler is used. */
  readonly knownTags: ReadonlyArray<string> | null
  /** Why rows that no longer exist were removed (cancel, acknowledgement), for explanations. */
  readonly forgotten: Readonly<Record<string, Provenance>>
}

/** A row written by the previous schema (effect-cf 0.50): no `wake_at`, no attempts row (R3). */
export interface LegacyRow {
  readonly tag: string
  readonly id: string
  readonly runAtMs: number
  readonly repeatEveryMs?: number | null
  /** Stored JSON text; may be undecodable on purpose (then dispatch takes the failure path without an event). */
  readonly payloadText: string
}

/** Options of `init`. */
export interface InitOptions {
  /** The configuration reference present when the service is built (also the ambient one). */
  readonly configuration?: ScheduleConfigurationInput
  /** Rows left by the older schema; migration backfills `wake_at = run_at`. */
  readonly legacyRows?: ReadonlyArray<LegacyRow>
  /** The platform alarm before the first transaction (default: the smallest legacy run_at, else null). */
  readonly platformAlarmMs?: number | null
  /** Typed definitions: only these tags may be scheduled or cancelled; other stored tags fail dispatch. */
  readonly knownTags?: ReadonlyArray<string>
}

/** The state of the LEFT JOIN read upstream does: defaults for a missing attempts row. */
export interface RowView {
  readonly storageId: string
  readonly alarmId: string
  readonly tag: string
  readonly runAtMs: number
  readonly wakeAtMs: number
  readonly repeatEveryMs: number | null
  readonly payloadText: string
  readonly revision: number
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  readonly progress: number
}

/** Reads one row as upstream's joined read does (missing attempts row: revision 0, attempts 0, progress -1). */
export const readRow = (rows: Readonly<Record<string, ScheduledRow>>, storageId: string): RowView | undefined => {
  const row = rows[storageId]
  if (row === undefined) return undefined
  const attempts = row.attemptsRow
  return {
    storageId: row.storageId,
    alarmId: row.alarmId,
    tag: row.tag,
    runAtMs: row.runAtMs,
    wakeAtMs: row.wakeAtMs,
    repeatEveryMs: row.repeatEveryMs,
    payloadText: row.payloadText,
    revision: attempts?.revision ?? 0,
    attempts: attempts?.attempts ?? 0,
    parked: attempts?.parked ?? false,
    retryAtMs: attempts?.retryAtMs ?? null,
    progress: attempts?.progress ?? -1
  }
}

/** Compares storage ids as SQLite's BINARY collation does (ids are ASCII after URI encoding). */
export const compareStorageIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Orders rows by effective wake, then storage id (R6, R21). */
export const byWakeThenStorageId = (a: RowView | ScheduledRow, b: RowView | ScheduledRow): number =>
  a.wakeAtMs - b.wakeAtMs || compareStorageIds(a.storageId, b.storageId)

/** The platform alarm R6 requires for these rows: the smallest wake (ties by storage id), or null. */
export const platformAlarmFor = (rows: Readonly<Record<string, ScheduledRow>>): number | null => {
  let best: ScheduledRow | undefined
  for (const row of Object.values(rows)) {
    if (best === undefined || byWakeThenStorageId(row, best) < 0) best = row
  }
  return best === undefined ? null : best.wakeAtMs
}

/**
 * The initial state: empty tables (or legacy rows already migrated: `wake_at = run_at`, no attempts row).
 *
 * @example init().rows // {}
 */
export const init = (options: InitOptions = {}): ModelState => {
  const rows: Record<string, ScheduledRow> = {}
  for (const legacy of options.legacyRows ?? []) {
    const storageId = storageIdOf(legacy)
    rows[storageId] = {
      storageId,
      alarmId: legacy.id,
      tag: legacy.tag,
      runAtMs: legacy.runAtMs,
      wakeAtMs: legacy.runAtMs,
      repeatEveryMs: legacy.repeatEveryMs ?? null,
      payloadText: legacy.payloadText,
      attemptsRow: null,
      decidedBy: { rules: ["R3"], why: "written by the older schema; migration backfilled wake_at = run_at" }
    }
  }
  const legacyAlarm = platformAlarmFor(rows)
  const configuration = options.configuration ?? {}
  return {
    rows,
    platformAlarmMs: options.platformAlarmMs === undefined ? legacyAlarm : options.platformAlarmMs,
    configuration: { captured: configuration, ambient: configuration },
    nextRevision: 1,
    reporterLog: [],
    knownTags: options.knownTags ?? null,
    forgotten: {}
  }
}

/** Decodes a stored payload text, or reports it undecodable. */
export const decodePayload = (payloadText: string): { readonly ok: true; readonly payload: Json } | { readonly ok: false } => {
  try {
    return { ok: true, payload: JSON.parse(payloadText) as Json }
  } catch {
    return { ok: false }
  }
}

/**
 * Asserts the row invariants every committed state keeps (a violation is a bug in the model itself):
 * wake_at = max(run_at, retry_at ?? run_at); attempts 0 <=> no retry_at; parked => attempts > 0.
 */
export const assertRowInvariants = (rows: Readonly<Record<string, ScheduledRow>>): void => {
  for (const [storageId, row] of Object.entries(rows)) {
    if (row.storageId !== storageId) throw new Error(`model invariant: row keyed ${storageId} says ${row.storageId}`)
    const attempts = row.attemptsRow
    const expectedWake = Math.max(row.runAtMs, attempts?.retryAtMs ?? row.runAtMs)
    if (row.wakeAtMs !== expectedWake) throw new Error(`model invariant: ${storageId} wake_at ${row.wakeAtMs} != ${expectedWake}`)
    if (attempts === null) continue
    if ((attempts.attempts === 0) !== (attempts.retryAtMs === null)) {
      throw new Error(`model invariant: ${storageId} attempts ${attempts.attempts} with retry_at ${attempts.retryAtMs}`)
    }
    if (attempts.parked && attempts.attempts === 0) throw new Error(`model invariant: ${storageId} parked with 0 attempts`)
  }
}
