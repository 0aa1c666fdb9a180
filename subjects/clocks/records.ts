/**
 * The journal records of the subject (C2, C13), built from stored rows so a repeat is byte-equal
 * (a journal `Duplicate`). Identities: `src:clock:K` seq 0 clock-scheduled and seq 1 clock-completed,
 * `src:deferred:K` seq 0 deferred-completed, `src:deferred-consumed:K` seq 0, `src:wake:K` (the
 * sweep's wake id), `<sourceId>:effect:<id>:<status>` seq 0 for effect-boundary records.
 */
import type { ClockAddress, DeferredAddress, EffectDescriptor, EffectStatus, JournalInput, JsonValue } from "./api.ts"

/** Event types of the records. */
export const EVENT_TYPES = {
  clockScheduled: "engine.clock-scheduled",
  clockCompleted: "engine.clock-completed",
  deferredCompleted: "engine.deferred-completed",
  deferredConsumed: "engine.deferred-consumed",
  effectBoundary: "flows.time-travel.effect-boundary"
} as const

/** K: the JSON of a deferred address. */
export const deferredKey = (address: DeferredAddress): string =>
  JSON.stringify([address.flowName, address.executionId, address.deferredName])

/** K: the JSON of a clock address. */
export const clockKey = (address: ClockAddress): string => JSON.stringify([address.flowName, address.executionId, address.clockName])

/** The lineage of a run's root (the meta every record carries). */
export const rootLineage = (executionId: string): string => `root:${executionId}`

/** JSON text with object keys sorted: equal values give equal text. */
export const canonicalJson = (value: JsonValue | undefined): string =>
  JSON.stringify(value ?? null, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner)

/** A short digest of a JSON value (FNV-1a, 32 bits, hex): the record names the value, the row holds it. */
export const digestOf = (value: JsonValue | undefined): string => {
  const text = canonicalJson(value)
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

/** A clock row as the records read it. */
export interface ClockRecordRow extends ClockAddress {
  readonly deferredName: string
  readonly dueAtMs: number
}

/** clock-scheduled, from the stored row (C8). */
export const clockScheduled = (source: string, row: ClockRecordRow): JournalInput => ({
  runId: row.executionId,
  sourceId: `${source}:clock:${clockKey(row)}`,
  sourceSeq: 0,
  eventType: EVENT_TYPES.clockScheduled,
  payload: { flowName: row.flowName, executionId: row.executionId, clockName: row.clockName, deferredName: row.deferredName, dueAtMs: row.dueAtMs },
  meta: { lineageId: rootLineage(row.executionId) }
})

/** clock-completed, emitted only by the fire whose CAS won (C10). */
export const clockCompleted = (source: string, row: ClockAddress, completedAtMs: number): JournalInput => ({
  runId: row.executionId,
  sourceId: `${source}:clock:${clockKey(row)}`,
  sourceSeq: 1,
  eventType: EVENT_TYPES.clockCompleted,
  payload: { flowName: row.flowName, executionId: row.executionId, clockName: row.clockName, completedAtMs },
  meta: { lineageId: rootLineage(row.executionId) }
})

/** A stored completion as the record names it. */
export interface CompletionRecordRow extends DeferredAddress {
  readonly completedAtMs: number
  readonly exit: JsonValue
  readonly metadata: JsonValue | null
}

/** deferred-completed, from the stored row (C5): digests name the value, which stays in the row. */
export const deferredCompleted = (source: string, row: CompletionRecordRow): JournalInput => ({
  runId: row.executionId,
  sourceId: `${source}:deferred:${deferredKey(row)}`,
  sourceSeq: 0,
  eventType: EVENT_TYPES.deferredCompleted,
  payload: {
    flowName: row.flowName,
    executionId: row.executionId,
    deferredName: row.deferredName,
    completedAtMs: row.completedAtMs,
    exitDigest: digestOf(row.exit),
    metadataDigest: row.metadata === null ? null : digestOf(row.metadata)
  },
  meta: { lineageId: rootLineage(row.executionId) }
})

/** deferred-consumed, recorded once with the first consumption (C7). */
export const deferredConsumed = (source: string, address: DeferredAddress, consumedAtMs: number): JournalInput => ({
  runId: address.executionId,
  sourceId: `${source}:deferred-consumed:${deferredKey(address)}`,
  sourceSeq: 0,
  eventType: EVENT_TYPES.deferredConsumed,
  payload: { flowName: address.flowName, executionId: address.executionId, deferredName: address.deferredName, consumedAtMs },
  meta: { lineageId: rootLineage(address.executionId) }
})

/** The sweep's wake identity of a completed deferred, stable across sweeps (C12). */
export const wakeSourceId = (source: string, address: DeferredAddress): string => `${source}:wake:${deferredKey(address)}`

/** One effect-boundary record (C13): its own identity per (effect, status), seq 0. */
export const effectBoundary = (descriptor: EffectDescriptor, status: EffectStatus, output?: JsonValue): JournalInput => ({
  runId: descriptor.runId,
  sourceId: `${descriptor.sourceId}:effect:${descriptor.id}:${status}`,
  sourceSeq: 0,
  eventType: EVENT_TYPES.effectBoundary,
  payload: {
    version: 1,
    effect: {
      id: descriptor.id,
      kind: descriptor.kind,
      tier: descriptor.tier,
      status,
      runId: descriptor.runId,
      lineageId: descriptor.lineageId,
      attempt: descriptor.attempt,
      durableBoundary: true,
      providerStream: false,
      ...(output === undefined ? {} : { output })
    }
  },
  meta: { lineageId: descriptor.lineageId, timeTravel: { effectId: descriptor.id, kind: descriptor.kind, tier: descriptor.tier, status } }
})
