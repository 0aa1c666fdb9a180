/**
 * Keys, identities and record projections of the clocks model (C1, C2): the same strings the
 * engine writes, recomputed here so the model imports nothing of an implementation.
 */
import { FLOW, type Json, type ProcessName, SOURCE } from "./types.ts"

/** The deferred a clock completes (the scenarios' naming convention). */
export const clockDeferred = (clock: string): string => `${clock}:fired`

/** The engine process that is not `process` (the scenarios have two, A and B). */
export const otherProcess = (process: ProcessName): ProcessName => (process === "A" ? "B" : "A")

/** Model key of a deferred or clock of one execution: `exec/name`. */
export const keyOf = (exec: string, name: string): string => `${exec}/${name}`

/** K: the JSON of an address. */
export const addressJson = (exec: string, name: string): string => JSON.stringify([FLOW, exec, name])

/** A journal identity `runId|sourceId|seq`. */
export const identity = (runId: string, sourceId: string, seq: number): string => `${runId}|${sourceId}|${seq}`

/** Identity of clock-scheduled (seq 0) or clock-completed (seq 1). */
export const clockIdentity = (exec: string, clock: string, seq: 0 | 1): string => identity(exec, `${SOURCE}:clock:${addressJson(exec, clock)}`, seq)

/** Identity of deferred-completed. */
export const completedIdentity = (exec: string, deferred: string): string => identity(exec, `${SOURCE}:deferred:${addressJson(exec, deferred)}`, 0)

/** Identity of deferred-consumed. */
export const consumedIdentity = (exec: string, deferred: string): string =>
  identity(exec, `${SOURCE}:deferred-consumed:${addressJson(exec, deferred)}`, 0)

/** The sweep's wake source id of a completion. */
export const wakeSourceId = (exec: string, deferred: string): string => `${SOURCE}:wake:${addressJson(exec, deferred)}`

/** The effect descriptor's fields for an effect of `exec` at `attempt` (C13). */
export const effectDescriptor = (exec: string, attempt: number) => ({
  id: `${exec}:k1:${attempt}`,
  kind: "email",
  tier: "irreversible" as const,
  runId: exec,
  lineageId: `root:${exec}`,
  sourceId: `${SOURCE}:step:${exec}`,
  attempt
})

/** Identity of an effect-boundary record. */
export const effectIdentity = (exec: string, attempt: number, status: string): string => {
  const descriptor = effectDescriptor(exec, attempt)
  return identity(exec, `${descriptor.sourceId}:effect:${descriptor.id}:${status}`, 0)
}

/**
 * The output of a scripted effect that succeeds: a JSON object with an array, built in one of two key
 * insertion orders (`variant`), so a re-run returning the same value in another order must still be
 * byte-equal in the journal (C2, C13).
 */
export const effectOutput = (attempt: number, variant = 0): Json =>
  variant % 2 === 0 ? { sent: attempt, to: ["ops", "audit"] } : { to: ["ops", "audit"], sent: attempt }

/** Event types (the engine's). */
export const EVENT = {
  clockScheduled: "engine.clock-scheduled",
  clockCompleted: "engine.clock-completed",
  deferredCompleted: "engine.deferred-completed",
  deferredConsumed: "engine.deferred-consumed",
  effectBoundary: "flows.time-travel.effect-boundary"
} as const

/** The longest fire retry delay (C11: the backoff is capped at 30 s). */
export const RETRY_CAP_MS = 30_000

/** Fire retry delay after `failures` failed fires: exponential from 100 ms, capped at 30 s (C11). */
export const retryDelayMs = (failures: number): number => Math.min(100 * 2 ** Math.min(failures - 1, 30), RETRY_CAP_MS)

/** The first number of failed fires whose retry waits the whole cap (`RETRY_CAP_MS`): 10. */
export const FAILURES_TO_RETRY_CAP: number = Array.from({ length: 64 }, (_, index) => index + 1).find((failures) => retryDelayMs(failures) === RETRY_CAP_MS)!

/**
 * Whether the `ordinal`-th durable emit (1-based) of an operation fails in a journal outage of
 * `outageEmits` consecutive emits from the `firstFailing`-th on (none when `firstFailing` is
 * undefined). The fault's definition, shared by the model and the harness's journal.
 */
export const journalEmitFails = (ordinal: number, firstFailing: number | undefined, outageEmits: number): boolean =>
  firstFailing !== undefined && ordinal >= firstFailing && ordinal < firstFailing + outageEmits
