/**
 * What the harness reads after each step, in the model's shapes: the completion and clock rows
 * (upstream's persisted layout) and the journal's records by identity, projected to what the model
 * predicts (payloads without digests; effect-boundary records whole).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Json } from "../../harness/Property.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { readInteger, readNullableInteger } from "../../subjects/clocks/dialect.ts"
import { readJournal, type StoredRecord } from "../../subjects/clocks/journal.ts"
import { modelEventType } from "./eventTypes.ts"
import { harnessError } from "./session.ts"
import { compareCodeUnits, compareEntryKeys } from "../../harness/CodeUnitOrder.ts"

/** The observed durable state. */

/** The values of keyed rows, in key order (the model's order), so row order in storage does not matter. */
const valuesByKey = (entries: ReadonlyArray<{ readonly key: string; readonly value: Json }>): ReadonlyArray<Json> =>
  [...entries].sort((a, b) => compareCodeUnits(a.key, b.key)).map((entry) => entry.value)

export interface ObservedRows {
  readonly deferreds: ReadonlyArray<Json>
  readonly clocks: ReadonlyArray<Json>
  readonly journal: Readonly<Record<string, Json>>
  /** The raw records, in admission order (invariant checks read them). */
  readonly records: ReadonlyArray<StoredRecord>
}

const byModelKey = (exec: string, name: string) => `${exec}/${name}`

/**
 * The payload the model predicts: effect-boundary records whole (the seed defines their wire shape),
 * the others without their digests (`recordChecks.ts` compares those, and every record's meta).
 */
const projectPayload = (record: StoredRecord): Json => {
  const payload = JSON.parse(record.payload) as Record<string, Json>
  if (record.eventType === "flows.time-travel.effect-boundary") return payload
  const { exitDigest: _exit, metadataDigest: _metadata, ...rest } = payload
  return rest
}

const parseJson = (value: unknown): Json => (value === null || value === undefined ? null : (JSON.parse(String(value)) as Json))

/** Reads the rows and the journal through `sql` (the adapter's client, outside any transaction). */
export const observeRows = (sql: SqlClient.SqlClient): Effect.Effect<ObservedRows, HarnessError> =>
  Effect.gen(function*() {
    const deferredRows = yield* sql<Record<string, unknown>>`SELECT * FROM engine_deferreds`
    const clockRows = yield* sql<Record<string, unknown>>`SELECT * FROM engine_clocks`
    // C2 leaves the engine records' namespace open (`eventTypes.ts`): the model's spelling from here on.
    const records = (yield* readJournal(sql)).map((record) => ({ ...record, eventType: modelEventType(record.eventType) }))
    const deferreds = valuesByKey(deferredRows
      .map((row) => ({
        key: byModelKey(String(row["execution_id"]), String(row["deferred_name"])),
        value: {
          executionId: String(row["execution_id"]),
          deferredName: String(row["deferred_name"]),
          exit: parseJson(row["exit"]),
          metadata: parseJson(row["metadata"]),
          completedAtMs: readInteger(row["completed_at_ms"]),
          consumedAtMs: readNullableInteger(row["consumed_at_ms"])
        } as Json
      })))
    const clocks = valuesByKey(clockRows
      .map((row) => ({
        key: byModelKey(String(row["execution_id"]), String(row["clock_name"])),
        value: {
          executionId: String(row["execution_id"]),
          clockName: String(row["clock_name"]),
          deferredName: String(row["deferred_name"]),
          dueAtMs: readInteger(row["due_at_ms"]),
          completedAtMs: readNullableInteger(row["completed_at_ms"])
        } as Json
      })))
    const identities = records.map((record) => [`${record.runId}|${record.sourceId}|${record.sourceSeq}`, record] as const)
      .sort(compareEntryKeys)
    const journal = Object.fromEntries(identities.map(([id, record]) => [id, { eventType: record.eventType, payload: projectPayload(record) } as Json]))
    return { deferreds, clocks, journal, records }
  }).pipe(Effect.mapError(harnessError("reading the clocks tables")))
