/**
 * The named pieces the clocks engine is composed of, and the correct defaults.
 *
 * `makeClocks(pieces)` (make.ts) wires the pieces into the deferred, clock and sweep skeleton. The
 * shipped implementation uses `defaultClockPieces`; a known-bad variant replaces exactly one piece.
 * Each piece cites the rules it realises and the historical bug (B*) a wrong version reproduces.
 */
import { Effect, Option, Schedule } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ClocksEnvironment, DeferredAddress, EffectDescriptor, Journal, JournalError, JournalInput, JsonValue, Waiting } from "./api.ts"
import * as Records from "./records.ts"
import type { ClockRow, ClockStore, Completion, DeferredRow } from "./store.ts"

/** What effectful pieces may use. */
export interface PieceRuntime {
  readonly environment: ClocksEnvironment
  readonly sql: SqlClient.SqlClient
  readonly store: ClockStore
  readonly journal: Journal
  /** Emits a lifecycle record on the channel the `durableChannel` piece chooses; a failure is a defect. */
  readonly emit: (input: JournalInput) => Effect.Effect<void>
}

/** A completion request: the row to write first-writer-wins and what runs beside it in its transaction. */
export interface CompletionRequest {
  readonly row: DeferredRow
  /** The waiting state the call requires (C6), if any. */
  readonly expectedWaiting: Waiting | undefined
  /** Work in the same transaction after the completion and its record (the fire's CAS, C10). */
  readonly alongside: Effect.Effect<void, SqlError>
}

/** The two halves of a completion: the rows (waiting check, first-writer write) and their records. */
export interface CompletionSteps {
  readonly state: Effect.Effect<Admission, SqlError>
  /** The records of the admission and the request's `alongside` work. */
  readonly records: (admission: Admission) => Effect.Effect<void, SqlError>
}

/** The two steps of a fire, for the `fireOrder` piece. */
export interface FireSteps {
  /** The clock being fired, as it was armed. */
  readonly clock: ClockRow
  /** The CAS of completedAt and, when it won, the clock-completed record (no transaction of its own). */
  readonly casAndRecord: Effect.Effect<void, SqlError>
  /** The completion transaction (C5) with `alongside` inside it, then flush and resume. */
  readonly complete: (alongside: Effect.Effect<void, SqlError>) => Effect.Effect<void>
}

/** How a completion transaction ended. */
export type Admission = { readonly _tag: "NotWaiting" } | { readonly _tag: "Admitted"; readonly completion: Completion }

/** The pieces. */
export interface ClockPieces {
  /** C5 first writer wins: insert when absent, else the stored row stands. */
  readonly completeDeferredRow: (store: ClockStore, row: DeferredRow) => Effect.Effect<Completion, SqlError>
  /** C4: the completion, its record and `alongside` commit as one transaction (B8 split them). */
  readonly completionTransaction: (runtime: PieceRuntime, steps: CompletionSteps) => Effect.Effect<Admission, SqlError>
  /** C6: whether the run's waiting state matches the call's reason and token. */
  readonly waitingMatches: (waiting: Option.Option<Waiting>, expected: Waiting) => boolean
  /** C5: whether a completion call resumes the run (every call; B1b resumed only on Created). */
  readonly resumesAfter: (completion: Completion) => boolean
  /** C3: the channel lifecycle records take (durable; B4 used the lossy queue). */
  readonly durableChannel: (journal: Journal, input: JournalInput) => Effect.Effect<void, JournalError>
  /** C3: the lossy flush after commit, whose failure is logged and ignored (B5 propagated it). */
  readonly flushLossy: (journal: Journal) => Effect.Effect<void>
  /**
   * C10: the order of a fire: the CAS (with clock-completed when it won) runs inside the completion's
   * transaction, after the completion and its record (B1a ran the CAS first, in its own transaction).
   */
  readonly fireOrder: (runtime: PieceRuntime, steps: FireSteps) => Effect.Effect<void>
  /** C10: the CAS of completedAt (only while null). */
  readonly completeClock: (store: ClockStore, row: ClockRow, completedAtMs: number) => Effect.Effect<boolean, SqlError>
  /** C10 / IG4: the clock-completed record of a won CAS (B9: none, so a rebuilt table shows it pending). */
  readonly clockCompletedRecord: (source: string, row: ClockRow, completedAtMs: number) => JournalInput | null
  /** C11: how a failed fire is redispatched (B3: not at all). */
  readonly retryFire: (fire: Effect.Effect<void>, policy: Schedule.Schedule<unknown, unknown>) => Effect.Effect<void>
  /** C8: insert the clock or keep the stored row (absolute deadline, replay-safe). */
  readonly storeClock: (store: ClockStore, row: ClockRow, owner: string) => Effect.Effect<ClockRow, SqlError>
  /** C9: whether a clock is armed, given whether its completion exists. */
  readonly shouldArm: (row: ClockRow, completionExists: boolean) => boolean
  /** C12: the pending clocks a sweep re-arms, read from the store; a failed read fails the sweep (it cannot re-arm what it could not read). */
  readonly sweepPending: (store: ClockStore, flowName: string | undefined) => Effect.Effect<ReadonlyArray<ClockRow>>
  /** C12: whether the sweep arms a pending clock (every one; B1c only those already due). */
  readonly sweepArms: (row: ClockRow, nowMs: number) => boolean
  /** C12: the completions the sweep wakes (every completed, unconsumed one; B1d none). */
  readonly sweepWakes: (completions: ReadonlyArray<DeferredRow>) => ReadonlyArray<DeferredRow>
  /** C12: the wake identity of a completion (stable across sweeps). */
  readonly wakeSourceId: (source: string, address: DeferredAddress, nowMs: number) => string
  /** C7: record the first consumption; true when this read was the first. */
  readonly consume: (store: ClockStore, address: DeferredAddress, consumedAtMs: number) => Effect.Effect<boolean, SqlError>
  /** C13: the effect runs between its intended record and its terminal record. */
  readonly effectBoundary: <A extends JsonValue, E>(runtime: PieceRuntime, descriptor: EffectDescriptor, effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
}

/** Default redispatch policy of a failed fire: exponential from 100 ms, capped at 30 s, forever (C11). */
export const defaultFireRetryPolicy: Schedule.Schedule<unknown, unknown> = Schedule.min([
  Schedule.exponential("100 millis"),
  Schedule.spaced("30 seconds")
])

/** Records one effect-boundary status in its own transaction. */
const recordStatus = (runtime: PieceRuntime, descriptor: EffectDescriptor, status: "intended" | "succeeded" | "unknown", output?: JsonValue) =>
  runtime.sql.withTransaction(runtime.emit(Records.effectBoundary(descriptor, status, output))).pipe(Effect.orDie)

/** The shipped (correct) pieces. */
export const defaultClockPieces: ClockPieces = {
  completeDeferredRow: (store, row) =>
    Effect.flatMap(store.insertDeferredIfAbsent(row), (inserted) =>
      Effect.map(store.deferred(row), (stored): Completion => ({ _tag: inserted ? "Created" : "Existing", row: stored ?? row }))),
  completionTransaction: (runtime, steps) => runtime.sql.withTransaction(Effect.tap(steps.state, steps.records)),
  waitingMatches: (waiting, expected) =>
    Option.isSome(waiting) && waiting.value.reason === expected.reason && waiting.value.token === expected.token,
  resumesAfter: () => true,
  durableChannel: (journal, input) => Effect.asVoid(journal.emitDurableUnfenced(input)),
  flushLossy: (journal) =>
    journal.flush.pipe(Effect.catchCause((cause) =>
      Effect.logWarning("clocks: lossy journal flush failed after a committed durable write; continuing", cause)
    )),
  fireOrder: (_runtime, steps) => steps.complete(steps.casAndRecord),
  completeClock: (store, row, completedAtMs) => store.completeClockIfPending(row, completedAtMs),
  clockCompletedRecord: (source, row, completedAtMs) => Records.clockCompleted(source, row, completedAtMs),
  retryFire: (fire, policy) => fire.pipe(Effect.sandbox, Effect.retry(policy), Effect.orDie),
  storeClock: (store, row, owner) =>
    Effect.flatMap(store.insertClockIfAbsent(row, owner), () => Effect.map(store.clock(row), (stored) => stored ?? row)),
  shouldArm: (row, completionExists) => row.completedAtMs === null || !completionExists,
  sweepPending: (store, flowName) => store.pendingClocks(flowName).pipe(Effect.orDie),
  sweepArms: () => true,
  sweepWakes: (completions) => completions,
  wakeSourceId: (source, address) => Records.wakeSourceId(source, address),
  consume: (store, address, consumedAtMs) => store.consumeIfFirst(address, consumedAtMs),
  effectBoundary: (runtime, descriptor, effect) =>
    Effect.gen(function*() {
      yield* recordStatus(runtime, descriptor, "intended")
      const exit = yield* Effect.exit(effect)
      yield* recordStatus(runtime, descriptor, exit._tag === "Success" ? "succeeded" : "unknown", exit._tag === "Success" ? exit.value : undefined)
      return yield* exit
    })
}
