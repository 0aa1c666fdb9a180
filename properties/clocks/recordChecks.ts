/**
 * Checks of what the model's journal projection leaves out: every record's `meta` and the digests of
 * deferred-completed records. Pure.
 *
 * The seed defines the meta of engine records as `{ lineageId: Lineage.root(executionId) }` but not
 * the text of `Lineage.root`, and it defines that a deferred-completed record names its stored exit and
 * metadata by digests (`exitDigest`, `metadataDigest`) but not the digest algorithm. So both are
 * checked relationally, never against our own implementation's choice:
 * - meta of an engine record is exactly `{ lineageId }`, a non-empty string that is the same on every
 *   record of a run and differs between runs; effect-boundary records carry the meta the seed's wire
 *   contract defines (the model predicts it whole);
 * - a digest is a function of the JSON *value* (key order is not part of a JSON object): records naming
 *   equal values carry equal digests, records naming different values carry different digests, and a
 *   present value's digest is a string.
 */
import { canonical, type Check } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import type { ModelState } from "../../models/clocks/index.ts"
import type { StoredRecord } from "../../subjects/clocks/journal.ts"

const identityOf = (record: StoredRecord): string => `${record.runId}|${record.sourceId}|${record.sourceSeq}`

const parsed = (text: string): Json => {
  try {
    return JSON.parse(text) as Json
  } catch {
    return `unparsable JSON text ${text}`
  }
}

/** The lineage id of each run, taken from its first engine record when it is a fresh non-empty string. */
const lineagesByRun = (records: ReadonlyArray<StoredRecord>, model: ModelState): ReadonlyMap<string, string> => {
  const lineages = new Map<string, string>()
  const taken = new Set<string>()
  for (const record of records) {
    if (lineages.has(record.runId) || (model.journal[identityOf(record)]?.meta ?? null) !== null) continue
    const lineage = (parsed(record.meta) as { readonly lineageId?: unknown } | null)?.lineageId
    const usable = typeof lineage === "string" && lineage.length > 0 && !taken.has(lineage)
    const chosen = usable ? lineage : `<a non-empty lineage id of run ${record.runId}, the same on all its records, distinct from other runs'>`
    lineages.set(record.runId, chosen)
    taken.add(chosen)
  }
  return lineages
}

/** Expected and actual meta of every record the model also holds, by identity. */
const metaComparison = (records: ReadonlyArray<StoredRecord>, model: ModelState) => {
  const lineages = lineagesByRun(records, model)
  const expected: Record<string, Json> = {}
  const actual: Record<string, Json> = {}
  for (const record of records) {
    const predicted = model.journal[identityOf(record)]
    if (predicted === undefined) continue
    expected[identityOf(record)] = predicted.meta ?? { lineageId: lineages.get(record.runId)! }
    actual[identityOf(record)] = parsed(record.meta)
  }
  return { expected, actual }
}

/**
 * The digest each record should carry for the values `valueOf` names: the first record naming a value
 * fixes that value's digest (when it is a string, or null for an absent value, and no other value has it).
 */
const digestComparison = (
  named: ReadonlyArray<{ readonly id: string; readonly value: Json; readonly digest: Json }>,
  absentMayBeNull: boolean
) => {
  const byValue = new Map<string, Json>()
  const used = new Set<string>()
  const expected: Record<string, Json> = {}
  const actual: Record<string, Json> = {}
  for (const entry of named) {
    const key = canonical(entry.value)
    if (!byValue.has(key)) {
      const allowed = typeof entry.digest === "string" || (absentMayBeNull && entry.value === null && entry.digest === null)
      const fresh = allowed && !used.has(canonical(entry.digest))
      const chosen = fresh ? entry.digest : `<a digest of ${key}, distinct from the other values' digests>`
      byValue.set(key, chosen)
      used.add(canonical(chosen))
    }
    expected[entry.id] = byValue.get(key)!
    actual[entry.id] = entry.digest
  }
  return { expected, actual }
}

/** The digests of the deferred-completed records, against the values the model says they name. */
const digestsOf = (records: ReadonlyArray<StoredRecord>, model: ModelState) => {
  const named = records.flatMap((record) => {
    const value = model.journal[identityOf(record)]?.named as { readonly exit?: Json; readonly metadata?: Json } | null | undefined
    if (value === null || value === undefined || record.eventType !== "engine.deferred-completed") return []
    const payload = parsed(record.payload) as Record<string, Json> | null
    return [{ id: identityOf(record), exit: value.exit ?? null, metadata: value.metadata ?? null, payload }]
  })
  const digest = (payload: Record<string, Json> | null, field: string): Json => payload?.[field] ?? `<no ${field}>`
  const exits = digestComparison(named.map((entry) => ({ id: entry.id, value: entry.exit, digest: digest(entry.payload, "exitDigest") })), false)
  const metadata = digestComparison(named.map((entry) => ({ id: entry.id, value: entry.metadata, digest: entry.payload?.["metadataDigest"] ?? null })), true)
  return { expected: { exits: exits.expected, metadata: metadata.expected }, actual: { exits: exits.actual, metadata: metadata.actual } }
}

/**
 * The record checks of one step: `records` observed in admission order, `model` the state the model
 * predicts after the step (its journal names each record's value and, where defined, its meta).
 */
export const recordChecks = (records: ReadonlyArray<StoredRecord>, model: ModelState): ReadonlyArray<Check> => {
  const meta = metaComparison(records, model)
  const digests = digestsOf(records, model)
  return [
    {
      observable: "record meta",
      expected: meta.expected,
      actual: meta.actual,
      rules: ["C2", "C13"],
      why: "records are admitted with their meta: the run's root lineage on engine records, the descriptor's lineage and timeTravel on effect boundaries"
    },
    {
      observable: "completion record digests",
      expected: digests.expected as Json,
      actual: digests.actual as Json,
      rules: ["C5"],
      why: "deferred-completed is emitted from the stored row and names its exit and metadata by digests of their JSON values"
    }
  ]
}
