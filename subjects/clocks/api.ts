/**
 * The public API of the `clocks` subject: durable deferreds, absolute clocks and their journal, with
 * upstream's names and shapes (`DeferredPersistence` of engine-store 1.0.0-rc.4, seed 003). Rule
 * numbers (C1-C13) refer to `reference/clocks.md`.
 *
 * This file is the binding contract for every implementation the suite certifies: the shipped one
 * (`shippedClocks` in `subjects/clocks/index.ts`), the known-bad variants, and third-party engines.
 * An upstream `DeferredPersistence.make(dependencies)` binds with a thin wrapper (see
 * `examples/third-party-clocks/`): the harness hands over the `SqlClient`, the `Journal`, the run
 * registry (`waiting`), `scheduleResume` and the retry policy, exactly the dependencies upstream takes.
 *
 * Persisted layout (upstream's, part of the contract because the harness reads the rows):
 * `engine_deferreds(flow_name, execution_id, deferred_name, exit, metadata, completed_at_ms,
 * consumed_at_ms)` and `engine_clocks(flow_name, execution_id, clock_name, deferred_name, due_at_ms,
 * completed_at_ms, owner)`; the journal's own table is `journal_events` (`journal.ts`).
 *
 * Determinism: implementations read time only through Effect's `Clock` (timers sleep on it, so the
 * virtual clock fires them) and never read the database clock.
 *
 * @example
 * ```ts
 * const clocks = yield* shippedClocks.make({ sql, dialect: "sqlite", journal, runs, owner: "p1", journalSource: "engine", scheduleResume })
 * yield* clocks.scheduleClock({ _tag: "checkout" }, { executionId: "e1", clock: { name: "t1", durationMs: 5_000, deferred: { name: "t1:fired" } } })
 * ```
 */
import type { Effect, Option, Schedule, Scope } from "effect"
import { Context, Data } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"

/** A JSON value: what exits, metadata and journal payloads may hold. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | ReadonlyArray<JsonValue>
  | { readonly [key: string]: JsonValue }

/** An encoded `Exit`: what the encoded engine stores for a deferred (C5, C7). */
export type EncodedExit =
  | { readonly _tag: "Success"; readonly value: JsonValue }
  | { readonly _tag: "Failure"; readonly error: JsonValue }

/** The address of a deferred (C1). */
export interface DeferredAddress {
  readonly flowName: string
  readonly executionId: string
  readonly deferredName: string
}

/** The address of a clock (C1). */
export interface ClockAddress {
  readonly flowName: string
  readonly executionId: string
  readonly clockName: string
}

/** A durable deferred as a flow declares it. */
export interface DurableDeferred {
  readonly name: string
}

/** A durable clock as a flow declares it: a relative duration and the deferred it completes (C1, C8). */
export interface DurableClock {
  readonly name: string
  readonly durationMs: number
  readonly deferred: DurableDeferred
}

/** A flow, as far as this subject needs it: its tag is the flow name. */
export interface FlowRef {
  readonly _tag: string
}

/** The flow instance a `deferredResult` runs in (upstream's `FlowRuntime.FlowInstance`). */
export class FlowInstance extends Context.Service<FlowInstance, { readonly flow: FlowRef; readonly executionId: string }>()(
  "@smthrs/flow/FlowRuntime/FlowInstance"
) {}

/** Options of `deferredDone` (C5): the completion value and optional opaque correlation metadata. */
export interface DeferredDoneOptions extends DeferredAddress {
  readonly exit: EncodedExit
  readonly metadata?: JsonValue
}

/** What `deferredDoneIfWaiting` answers (C5, C6). */
export type DeferredDoneIfWaitingOutcome = "Created" | "Existing" | "NotWaiting"

/** Reasons passed to the claim-gated resume scheduler. */
export type ResumeReason = "deferred" | "clock"

/** What a run waits for, as the run registry records it (C6). */
export interface Waiting {
  readonly reason: string
  readonly token: string
}

/** The run registry the implementation reads inside its transaction (C6). */
export interface RunRegistry {
  readonly waiting: (executionId: string) => Effect.Effect<Option.Option<Waiting>>
}

/** A journal record to admit (C2): keyed by `(runId, sourceId, sourceSeq)`. */
export interface JournalInput {
  readonly runId: string
  readonly sourceId: string
  readonly sourceSeq: number
  readonly eventType: string
  readonly payload: JsonValue
  readonly meta: JsonValue
}

/** How a durable admission ended (C2). */
export type JournalAdmission = "Admitted" | "Duplicate"

/** A journal failure: a conflicting re-admission, a latched lossy sink, or unavailable storage. */
export class JournalError extends Data.TaggedError("JournalError")<{
  readonly reason: "idempotency_conflict" | "sink_failed" | "unavailable"
  readonly message: string
}> {}

/**
 * The journal (upstream `@smthrs/journal`): a durable channel that writes inside the caller's
 * transaction (its own transaction when there is none) and a lossy queue pushed by `flush` (C2, C3).
 */
export interface Journal {
  readonly emitDurableUnfenced: (input: JournalInput) => Effect.Effect<JournalAdmission, JournalError>
  /** Queues a record on the droppable lossy channel. */
  readonly emitLossy: (input: JournalInput) => Effect.Effect<void>
  /** Pushes the lossy queue; a latched sink failure fails every flush. */
  readonly flush: Effect.Effect<void, JournalError>
}

/** What an effect boundary knows about an irreversible effect before it begins (C13). */
export interface EffectDescriptor {
  /** The attempt identity `runId:keyDigest:attempt`. */
  readonly id: string
  readonly kind: string
  readonly tier: "sealed" | "compensable" | "irreversible"
  readonly runId: string
  readonly lineageId: string
  readonly sourceId: string
  readonly attempt: number
}

/** Status of an effect boundary record; it only moves forward (C13). */
export type EffectStatus = "intended" | "succeeded" | "unknown"

/** Everything an implementation is built from (upstream's `Dependencies` plus storage and journal). */
export interface ClocksEnvironment {
  readonly sql: SqlClient.SqlClient
  readonly dialect: Dialect
  readonly journal: Journal
  readonly runs: RunRegistry
  readonly owner: string
  readonly journalSource: string
  /** Enters the claim path for the run; never runs flow code (C5). */
  readonly scheduleResume: (flowName: string, executionId: string, reason: ResumeReason, sourceId?: string) => Effect.Effect<void>
  /** Redispatch policy of a failed fire (default: exponential from 100 ms capped at 30 s, forever; C11). */
  readonly fireRetryPolicy?: Schedule.Schedule<unknown, unknown>
}

/** Durable deferred and clock operations (upstream `DeferredPersistence.Service`). */
export interface ClocksService {
  readonly deferredResult: (deferred: DurableDeferred) => Effect.Effect<Option.Option<EncodedExit>, never, FlowInstance>
  readonly deferredDone: (options: DeferredDoneOptions) => Effect.Effect<void>
  readonly deferredDoneIfWaiting: (
    options: DeferredDoneOptions & { readonly reason: string; readonly token: string }
  ) => Effect.Effect<DeferredDoneIfWaitingOutcome>
  readonly scheduleClock: (flow: FlowRef, options: { readonly executionId: string; readonly clock: DurableClock }) => Effect.Effect<void>
  readonly sweepDue: (flowName?: string) => Effect.Effect<void>
  /**
   * Runs one irreversible effect inside its boundary records (C13): `intended` committed before it
   * begins, then `succeeded` (with the output) or `unknown` (on failure). The effect's exit is returned.
   */
  readonly withEffectBoundary: <A extends JsonValue, E>(
    descriptor: EffectDescriptor,
    effect: Effect.Effect<A, E>
  ) => Effect.Effect<A, E>
}

/** An implementation of the clocks subject the suite can certify. */
export interface ClocksImplementation {
  /** Short stable name used in reports. */
  readonly name: string
  /** Builds the service; timers live in the given scope (closing it is a process dying). */
  readonly make: (environment: ClocksEnvironment) => Effect.Effect<ClocksService, unknown, Scope.Scope>
}
