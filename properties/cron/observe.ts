/**
 * What the cron properties observe after every step, on both sides, in one shape: the outbox rows
 * by (actor, timer key), the deliveries the actor's handler committed (in order) and the receipts.
 * Tick ids are replaced by their names of first appearance (`harness/OpaqueIds.ts`), keeping the
 * parts of the id the rules decide (`v1`, now, expiry).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"
import type { SqlError } from "effect/sql/SqlError"
import type { Json } from "../../harness/Property.ts"
import type { OpaqueIdNamer } from "../../harness/OpaqueIds.ts"
import { ACTOR_TYPE, type CronModelState, sortRows, TENANT } from "../../models/cron/index.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"

/** The harness's own table of committed deliveries (the actor's handler writes it in the delivery transaction). */
export const FIRED_TABLE = "conformance_cron_fired"

/** Creates the deliveries table (before any runner starts). */
export const createFiredTable = (sql: SqlClient.SqlClient): Effect.Effect<void, SqlError> =>
  Effect.asVoid(sql.unsafe(`CREATE TABLE IF NOT EXISTS ${FIRED_TABLE} (
    seq BIGINT NOT NULL, command_id TEXT NOT NULL, actor_id TEXT NOT NULL, timer_key TEXT, command TEXT NOT NULL, payload TEXT NOT NULL, at_ms BIGINT NOT NULL)`))

/** A row as either side shows it, before naming. */
export interface RawRow {
  readonly tenant: string
  readonly actorType: string
  readonly actorId: string
  readonly timerKey: string | null
  readonly intentId: string
  readonly kind: string
  readonly targetType: string
  readonly targetId: string
  readonly dueAtMs: number
  readonly scheduledAtMs: number
  readonly command: string
  readonly payload: string
  readonly caller: Json
  readonly attempts: number
  readonly lastError: string | null
  readonly ambiguous: boolean
}

/** A committed delivery. */
export interface RawFired {
  readonly commandId: string
  readonly actorId: string
  readonly timerKey: string | null
  readonly command: string
  readonly payload: string
  readonly atMs: number
}

/** A receipt. */
export interface RawReceipt {
  readonly actorId: string
  readonly commandId: string
  readonly command: string
}

/** Everything observed after a step. */
export interface RawObservation {
  readonly rows: ReadonlyArray<RawRow>
  readonly fired: ReadonlyArray<RawFired>
  readonly receipts: ReadonlyArray<RawReceipt>
}

const integer = (value: unknown): number => (typeof value === "number" ? value : Number(String(value)))

/** A flag column as any driver returns it: a boolean (Postgres BOOLEAN) or 0/1 (an integer column, SQLite). */
export const flagOf = (value: unknown): boolean => value === true || integer(value) === 1

const parseCaller = (text: unknown): Json => {
  try {
    return JSON.parse(String(text)) as Json
  } catch {
    return String(text)
  }
}

const parseRows = (value: unknown): ReadonlyArray<Record<string, unknown>> =>
  (typeof value === "string" ? JSON.parse(value) : value ?? []) as ReadonlyArray<Record<string, unknown>>

/**
 * One statement reading all three tables as JSON arrays (one round trip per observation): SQLite's
 * `json_group_array`, Postgres's `json_agg`.
 */
const observationSql = (dialect: Dialect): string => {
  const outbox = "tenant_id, actor_type, actor_id, timer_key, intent_id, kind, target_type, target_id, due_at_ms, scheduled_at_ms, command, payload, caller, attempts, last_error, ambiguous"
  if (dialect === "sqlite") {
    const object = (columns: string) => `json_object(${columns.split(", ").map((column) => `'${column}', ${column}`).join(", ")})`
    return `SELECT
      (SELECT json_group_array(${object(outbox)}) FROM actor_outbox) AS outbox,
      (SELECT json_group_array(${object("seq, command_id, actor_id, timer_key, command, payload, at_ms")}) FROM (SELECT * FROM ${FIRED_TABLE} ORDER BY seq)) AS fired,
      (SELECT json_group_array(${object("actor_id, command_id, command")}) FROM actor_receipts) AS receipts`
  }
  return `SELECT
    (SELECT coalesce(json_agg(row_to_json(t)), '[]'::json) FROM (SELECT ${outbox} FROM actor_outbox) t)::text AS outbox,
    (SELECT coalesce(json_agg(row_to_json(t) ORDER BY t.seq), '[]'::json) FROM ${FIRED_TABLE} t)::text AS fired,
    (SELECT coalesce(json_agg(row_to_json(t)), '[]'::json) FROM (SELECT actor_id, command_id, command FROM actor_receipts) t)::text AS receipts`
}

/** Reads the implementation's rows, deliveries and receipts (upstream's tables, the harness's own) in one statement. */
export const readObservation = (sql: SqlClient.SqlClient, dialect: Dialect): Effect.Effect<RawObservation, SqlError> =>
  Effect.gen(function*() {
    const [result] = yield* sql.unsafe<Record<string, unknown>>(observationSql(dialect))
    const rows = parseRows(result?.outbox)
    const fired = parseRows(result?.fired)
    const receipts = parseRows(result?.receipts)
    return {
      rows: rows.map((row): RawRow => ({
        tenant: String(row.tenant_id), actorType: String(row.actor_type), actorId: String(row.actor_id),
        timerKey: row.timer_key === null ? null : String(row.timer_key), intentId: String(row.intent_id),
        kind: String(row.kind), targetType: String(row.target_type), targetId: String(row.target_id),
        dueAtMs: integer(row.due_at_ms), scheduledAtMs: integer(row.scheduled_at_ms),
        command: String(row.command), payload: String(row.payload), caller: parseCaller(row.caller),
        attempts: integer(row.attempts), lastError: row.last_error === null ? null : String(row.last_error),
        ambiguous: flagOf(row.ambiguous)
      })),
      fired: fired.map((row): RawFired => ({
        commandId: String(row.command_id), actorId: String(row.actor_id), timerKey: row.timer_key === null ? null : String(row.timer_key),
        command: String(row.command), payload: String(row.payload), atMs: integer(row.at_ms)
      })),
      receipts: receipts.map((row): RawReceipt => ({ actorId: String(row.actor_id), commandId: String(row.command_id), command: String(row.command) }))
    }
  })

/** The model's state in the same shape. */
export const modelObservation = (state: CronModelState): RawObservation => ({
  rows: sortRows(state.rows).map((row): RawRow => ({
    tenant: TENANT, actorType: ACTOR_TYPE, actorId: row.actorId, timerKey: row.timerKey, intentId: row.intentId,
    kind: "intent", targetType: ACTOR_TYPE, targetId: row.actorId, dueAtMs: row.dueAtMs, scheduledAtMs: row.scheduledAtMs,
    command: row.command, payload: row.payload,
    caller: { _tag: "System", source: "cron", ref: { tenant: TENANT, actor: ACTOR_TYPE, id: row.actorId } },
    attempts: row.attempts, lastError: row.lastError, ambiguous: row.ambiguous
  })),
  fired: state.fired.map((fired) => ({ ...fired })),
  receipts: state.receipts.map((receipt) => ({ ...receipt }))
})

/** The parts of a tick id `v1.<now>.<expiry>.<uuid>`; null parts when it does not have that shape. */
export const tickIdParts = (id: string): { readonly version: string; readonly nowMs: number | null; readonly expiryMs: number | null; readonly uuid: string } => {
  const [version = "", now = "", expiry = "", ...uuid] = id.split(".")
  const number = (text: string) => (/^\d+$/.test(text) ? Number(text) : null)
  return { version, nowMs: number(now), expiryMs: number(expiry), uuid: uuid.join(".") }
}

/** Code-unit order of two texts. */
export const compareText = compareCodeUnits

/** A named observation: what the checks compare. */
export interface NamedObservation {
  readonly rows: ReadonlyArray<Json>
  readonly fired: ReadonlyArray<Json>
  readonly receipts: ReadonlyArray<Json>
  /** Rows per (actor, timer key) where there is more than one (I1). */
  readonly duplicates: ReadonlyArray<Json>
}

/** Names ids by first appearance: rows by (actor, key, due), deliveries in order, then receipts. */
export const nameObservation = (observation: RawObservation, namer: OpaqueIdNamer): NamedObservation => {
  const rows = [...observation.rows].sort((a, b) =>
    compareText(a.actorId, b.actorId) || compareText(a.timerKey ?? "", b.timerKey ?? "") || a.dueAtMs - b.dueAtMs || compareText(a.intentId, b.intentId))
  const namedRows = rows.map((row) => {
    const parts = tickIdParts(row.intentId)
    const { intentId, tenant, actorType, ...rest } = row
    return { ...rest, id: namer.name(intentId), idVersion: parts.version, idNowMs: parts.nowMs, idExpiryMs: parts.expiryMs } as Json
  })
  const fired = observation.fired.map((entry) => ({ ...entry, commandId: namer.name(entry.commandId) }) as Json)
  const known = observation.receipts.filter((receipt) => namer.known(receipt.commandId) !== undefined)
  const unknown = observation.receipts.filter((receipt) => namer.known(receipt.commandId) === undefined)
  const receipts = [
    ...known.map((receipt) => ({ ...receipt, commandId: namer.known(receipt.commandId)! }))
      .sort((a, b) => compareText(a.commandId, b.commandId) || compareText(a.command, b.command)),
    ...unknown.sort((a, b) => compareText(a.actorId, b.actorId) || compareText(a.command, b.command) || compareText(a.commandId, b.commandId))
      .map((receipt) => ({ ...receipt, commandId: namer.name(receipt.commandId) }))
  ] as ReadonlyArray<Json>
  const counts = new Map<string, number>()
  for (const row of rows) counts.set(`${row.actorId} ${row.timerKey}`, (counts.get(`${row.actorId} ${row.timerKey}`) ?? 0) + 1)
  const duplicates = [...counts].filter(([, count]) => count > 1).map(([key, count]) => ({ key, rows: count }))
  return { rows: namedRows, fired, receipts, duplicates }
}
