/**
 * The model's state: the rows that matter (`effect_cf_scheduled_alarms` joined with
 * `effect_cf_alarm_attempts`), the
 * platform alarm, the configuration layers and the reporter log. Plain JSON, never mutated in place.
 */
import type { Json } from "../../harness/Property.ts"
import type { ConfigurationLayers, ScheduleConfigurationInput } from "./configuration.ts"
import { storageIdOf } from "./storageId.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"

/** Rules and a sentence saying which rule decided a value (attribution for explanations). */
export interface Provenance {
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

/**
 * An `effect_cf_alarm_attempts` row. `revision` is abstract: a counter unique per write (upstream a
 * random uuid); only equality matters and it is never observable. Revisions written by the model are
 * positive; an attempts row found in an older layout has a negative revision (0 when it stored '').
 */
export interface AttemptsRow {
  readonly revision: number
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  readonly progress: number
}

/** An `effect_cf_scheduled_alarms` row with its attempts row (null when it has none, as rows of layout (a)). */
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
  /**
   * Known tags whose payload schema takes numbers only (every other known tag takes any JSON value):
   * a schedule of another payload is refused, a stored row of another payload fails to decode (R29).
   */
  readonly numberTags: ReadonlyArray<string>
  /** Why rows that no longer exist were removed (cancel, acknowledgement), for explanations. */
  readonly forgotten: Readonly<Record<string, Provenance>>
}

/**
 * The attempts row of a legacy row in layout (b) (attempt tracking without `wake_at`): backing off
 * (`attempts > 0`, `retryAtMs` set, not parked), parked, or fresh (`attempts 0`, no `retryAtMs`).
 */
export interface LegacyAttempts {
  /** Stored revision; only '' versus non-empty matters to the model (default: non-empty). */
  readonly revision?: string
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  /** Progress cursor; -1 when none. */
  readonly progress: number
}

/**
 * A row written by an older layout (R3): (a) before attempt tracking (no `wake_at`, no attempts row;
 * `attempts` absent or null) or (b) attempt tracking without `wake_at` (`attempts` as stored, or
 * absent when the row has no attempts row).
 */
export interface LegacyRow {
  readonly tag: string
  readonly id: string
  readonly runAtMs: number
  readonly repeatEveryMs?: number | null
  /** Stored JSON text; may be undecodable on purpose (then dispatch takes the failure path without an event). */
  readonly payloadText: string
  readonly attempts?: LegacyAttempts | null
}

/** Options of `init`. */
export interface InitOptions {
  /** The configuration reference present when the service is built (also the ambient one). */
  readonly configuration?: ScheduleConfigurationInput
  /** Rows left by an older layout; migration backfills `wake_at = max(run_at, retry_at ?? run_at)`. */
  readonly legacyRows?: ReadonlyArray<LegacyRow>
  /** The platform alarm before the first transaction (default: the smallest legacy wake, else null). */
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
export const compareStorageIds = compareCodeUnits

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
 * The migrated form of legacy row number `index` (R3): `wake_at = max(run_at, retry_at ?? run_at)`, the
 * attempt state kept as stored. A stored revision maps to `-(index + 1)` ('' to 0, like a missing row).
 */
const migratedLegacyRow = (legacy: LegacyRow, index: number): ScheduledRow => {
  const stored = legacy.attempts ?? null
  const attemptsRow: AttemptsRow | null = stored === null ? null : {
    revision: stored.revision === "" ? 0 : -(index + 1),
    attempts: stored.attempts,
    parked: stored.parked,
    retryAtMs: stored.retryAtMs,
    progress: stored.progress
  }
  return {
    storageId: storageIdOf(legacy),
    alarmId: legacy.id,
    tag: legacy.tag,
    runAtMs: legacy.runAtMs,
    wakeAtMs: Math.max(legacy.runAtMs, stored?.retryAtMs ?? legacy.runAtMs),
    repeatEveryMs: legacy.repeatEveryMs ?? null,
    payloadText: legacy.payloadText,
    attemptsRow,
    decidedBy: {
      rules: ["R3"],
      why: stored === null
        ? "written by an older layout without an attempts row; migration backfilled wake_at = run_at"
        : "written by an older layout with its attempts row; migration backfilled wake_at = max(run_at, retry_at ?? run_at)"
    }
  }
}

/**
 * The initial state: empty tables, or legacy rows already migrated (R3): each keeps its deadline and
 * attempt state, and wakes at `max(run_at, retry_at ?? run_at)`.
 *
 * @example init().rows // {}
 */
export const init = (options: InitOptions = {}): ModelState => {
  const rows: Record<string, ScheduledRow> = {}
  ;(options.legacyRows ?? []).forEach((legacy, index) => {
    const row = migratedLegacyRow(legacy, index)
    rows[row.storageId] = row
  })
  assertRowInvariants(rows)
  const legacyAlarm = platformAlarmFor(rows)
  const configuration = options.configuration ?? {}
  return {
    rows,
    platformAlarmMs: options.platformAlarmMs === undefined ? legacyAlarm : options.platformAlarmMs,
    configuration: { captured: configuration, ambient: configuration },
    nextRevision: 1,
    reporterLog: [],
    knownTags: options.knownTags ?? null,
    numberTags: [],
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
