/**
 * The engine's journal records (C2): one builder per lifecycle record, each built from a stored row
 * so that re-emitting it after a replay is byte-equal and collapses into a journal `Duplicate`.
 * Every payload holds only JSON values (no `undefined`).
 */
import type { JournalInput } from "../../subjects/clocks/api.ts"
import { digestOf } from "./digest.ts"
import { addressKey, clockSource, consumedSource, deferredSource } from "./keys.ts"
import type { ClockRow, DeferredRow } from "./rows.ts"

/** Event types of the engine's lifecycle records. */
export const EventTypes = {
  clockScheduled: "clock-scheduled",
  clockCompleted: "clock-completed",
  deferredCompleted: "deferred-completed",
  deferredConsumed: "deferred-consumed"
} as const

/** The meta every lifecycle record carries: the run's root lineage, which is the run itself. */
const lifecycleMeta = (executionId: string) => ({ lineageId: executionId })

/** clock-scheduled, from the stored clock row (`src:clock:K`, seq 0). */
export const clockScheduled = (src: string, row: ClockRow): JournalInput => ({
  runId: row.executionId,
  sourceId: clockSource(src, addressKey(row.flowName, row.executionId, row.clockName)),
  sourceSeq: 0,
  eventType: EventTypes.clockScheduled,
  payload: {
    flowName: row.flowName,
    executionId: row.executionId,
    clockName: row.clockName,
    deferredName: row.deferredName,
    dueAtMs: row.dueAtMs
  },
  meta: lifecycleMeta(row.executionId)
})

/** clock-completed, emitted only by the fire whose CAS won (`src:clock:K`, seq 1). */
export const clockCompleted = (src: string, row: ClockRow, completedAtMs: number): JournalInput => ({
  runId: row.executionId,
  sourceId: clockSource(src, addressKey(row.flowName, row.executionId, row.clockName)),
  sourceSeq: 1,
  eventType: EventTypes.clockCompleted,
  payload: {
    flowName: row.flowName,
    executionId: row.executionId,
    clockName: row.clockName,
    completedAtMs
  },
  meta: lifecycleMeta(row.executionId)
})

/** deferred-completed, from the stored completion row (`src:deferred:K`, seq 0). */
export const deferredCompleted = (src: string, row: DeferredRow): JournalInput => ({
  runId: row.executionId,
  sourceId: deferredSource(src, addressKey(row.flowName, row.executionId, row.deferredName)),
  sourceSeq: 0,
  eventType: EventTypes.deferredCompleted,
  payload: {
    flowName: row.flowName,
    executionId: row.executionId,
    deferredName: row.deferredName,
    completedAtMs: row.completedAtMs,
    exitDigest: digestOf(row.exitJson),
    metadataDigest: digestOf(row.metadataJson)
  },
  meta: lifecycleMeta(row.executionId)
})

/** deferred-consumed, for the first consumption only (`src:deferred-consumed:K`, seq 0). */
export const deferredConsumed = (src: string, row: DeferredRow, consumedAtMs: number): JournalInput => ({
  runId: row.executionId,
  sourceId: consumedSource(src, addressKey(row.flowName, row.executionId, row.deferredName)),
  sourceSeq: 0,
  eventType: EventTypes.deferredConsumed,
  payload: {
    flowName: row.flowName,
    executionId: row.executionId,
    deferredName: row.deferredName,
    consumedAtMs
  },
  meta: lifecycleMeta(row.executionId)
})
