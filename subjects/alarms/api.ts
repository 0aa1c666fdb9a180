/**
 * The public API of the `alarms` subject: a Durable Object alarm scheduler that multiplexes many
 * logical alarms `{tag, id}` onto the single platform alarm of a Durable Object and stores them in SQL.
 *
 * This file is the binding contract for every implementation the suite certifies: the shipped one
 * (`shippedAlarms` in `subjects/alarms/index.ts`), the known-bad variants used to test the suite itself, and third-party
 * schedulers ("implementation authors certify their own scheduler"). Names and shapes follow the
 * upstream package (effect-cf `DurableObjectAlarm`, 0.52 behaviour) so an upstream implementation,
 * or a fork of it, binds with a thin wrapper. Rule numbers (R1-R29) refer to `reference/alarms.md`.
 *
 * Determinism: implementations read time only through Effect's `Clock` and randomness (revisions)
 * only through Effect's `Random`; interleavings are explored through `hookPoint(...)` calls
 * (`harness/HookPoints.ts`), an injected service that does nothing outside the harness.
 *
 * @example
 * ```ts
 * const alarms = yield* shippedAlarms.make({ sql, dialect: "sqlite", platformAlarm })
 * yield* alarms.scheduleAlarm({ tag: "email", id: "42", payload: { to: "a" }, runAt: DateTime.makeUnsafe(5_000) })
 * const result = yield* alarms.processDueAlarms((event) => sendEmail(event.payload))
 * ```
 */
import type { DateTime, Duration } from "effect"
import { Context, Data, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect, PlatformAlarm } from "../../adapters/contract.ts"

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/** A JSON value: what an alarm payload may be (stored as JSON text). */
export type AlarmPayload =
  | null
  | boolean
  | number
  | string
  | ReadonlyArray<AlarmPayload>
  | { readonly [key: string]: AlarmPayload }

/** Names one logical alarm. Reusing `{tag, id}` replaces the alarm. Both must be non-empty strings. */
export interface AlarmRef<Tag extends string = string> {
  readonly tag: Tag
  readonly id: string
}

/**
 * Input of `scheduleAlarm` / `scheduleAlarmEarlier`: arm a logical deadline (R8-R18).
 * External enrollment (outside a handler pass) is progress and resets the failure budget; a handler
 * re-arming work from inside its pass consumes budget.
 */
export type ScheduleAlarmInput<Tag extends string = string> = AlarmRef<Tag> & {
  /** JSON-encodable payload, handed back in the `AlarmEvent`. */
  readonly payload: AlarmPayload
  /** The logical deadline (`scheduledAt` of the event). */
  readonly runAt: DateTime.Utc
  /** Repeat after each completed run; at least `minimumRepeatInterval`, stored rounded up to whole ms. */
  readonly repeatEvery?: Duration.Input
  /**
   * Optional monotonic source cursor (a non-negative integer). Only a strictly greater cursor resets
   * a live budget; an external call with a cursor <= the stored one is dropped (R11).
   */
  readonly progress?: number
}

/** What `getAlarmStatus` reports about retained work (R28). */
export interface AlarmStatus {
  /** Unchanged attempts charged so far (0 = fresh budget). */
  readonly attempts: number
  /** True while the alarm is parked (sticky until progress, R14). */
  readonly parked: boolean
  /** The logical deadline `run_at`. */
  readonly runAt: DateTime.Utc
  /** The raw stored retry time, or undefined when not backing off. */
  readonly retryAt: DateTime.Utc | undefined
}

/** What a handler receives for one due alarm (R22). `scheduledAt` is `run_at`, stable across retries. */
export interface AlarmEvent<Tag extends string = string> {
  readonly id: string
  readonly tag: Tag
  readonly payload: AlarmPayload
  readonly scheduledAt: DateTime.Utc
}

/**
 * A new parked episode, reported after commit (R27). Content-free on purpose: no identifiers, payload,
 * error text or consumer state. `retryAt` is `max(run_at, retry_at)`.
 */
export interface AlarmParked {
  readonly _tag: "AlarmParked"
  readonly attempts: number
  readonly retryAt: DateTime.Utc
}

/** Builds an `AlarmParked` value. */
export const AlarmParked = (fields: { readonly attempts: number; readonly retryAt: DateTime.Utc }): AlarmParked => ({
  _tag: "AlarmParked",
  attempts: fields.attempts,
  retryAt: fields.retryAt
})

/** One failed row of a `processDueAlarms` pass, handed to `onFailure` and listed in `failed`. */
export interface ProcessDueAlarmsFailure {
  /**
   * The `Cause` of the failure: the handler's, or for a stored row that could not be decoded a
   * failure with `StoredAlarmDecodeError` (use `Cause.squash` for the single error).
   */
  readonly cause: unknown
  /** The decoded event; absent when the stored payload or tag could not be decoded. */
  readonly event?: AlarmEvent
  readonly tag: string
  readonly id: string
}

/**
 * What to do with a failed row (R24). Default `retry`: back off per R2/R25 (`retryFailedAfter` is the
 * base delay, floored at `minimumRetryDelay`). `skip-and-advance-repeat`: acknowledge as if handled
 * (a repeat advances, a one-shot is deleted).
 */
export type OnFailureAction =
  | "retry"
  | "skip-and-advance-repeat"
  | { readonly mode: "retry"; readonly retryFailedAfter?: Duration.Input }
  | { readonly mode: "skip-and-advance-repeat" }

/** Options of `processDueAlarms` (R20), validated before any row is touched. */
export interface ProcessDueAlarmsOptions<OnFailureR = never, OnFailureE = never> {
  /** Maximum rows handled in this call; positive safe integer, default 100. */
  readonly limit?: number
  /** Base failure retry delay; finite and > 0, floored at `minimumRetryDelay` (its default). */
  readonly retryFailedAfter?: Duration.Input
  /**
   * Called for each failure under `Effect.exit`. Returning nothing means `retry`. A failure of this
   * effect still reschedules the row, then aborts the rest of the batch and fails the call (R24).
   */
  readonly onFailure?: (
    failure: ProcessDueAlarmsFailure
  ) => Effect.Effect<OnFailureAction | void, OnFailureE, OnFailureR>
}

/** Handles one due alarm. A failure (any error or defect) takes the failure path; it does not fail the call. */
export type ProcessDueAlarmsHandler<R = never, E = never> = (event: AlarmEvent) => Effect.Effect<unknown, E, R>

/** Result of one `processDueAlarms` call (R26). */
export interface ProcessDueAlarmsResult {
  /** Events whose handler succeeded (also when the acknowledgement was a no-op, edge case 6). */
  readonly handled: ReadonlyArray<AlarmEvent>
  readonly failed: ReadonlyArray<ProcessDueAlarmsFailure>
  /** New parked episodes reported during this call (same values as sent to `AlarmReporter`). */
  readonly parked: ReadonlyArray<AlarmParked>
}

// ---------------------------------------------------------------------------------------------
// Configuration and reporting (context references)
// ---------------------------------------------------------------------------------------------

/** Hard floor of `minimumRetryDelay` and its default: one second. */
export const MIN_RETRY_DELAY_MS = 1_000
/** Default unchanged-attempt budget. */
export const UNCHANGED_ATTEMPT_BUDGET = 8
/** Hard floor of `parkedRetryDelay` and its default: one hour. */
export const PARKED_RETRY_DELAY_MS = 3_600_000
/** Hard floor of `minimumRepeatInterval`: one second. */
export const MIN_REPEAT_INTERVAL_MS = 1_000
/** Default `minimumRepeatInterval`: one minute (never use repeats to poll state). */
export const DEFAULT_MIN_REPEAT_INTERVAL_MS = 60_000
/** Default `limit` of `processDueAlarms`. */
export const DEFAULT_PROCESS_DUE_ALARMS_LIMIT = 100

/**
 * Scheduler policy (R1). Durations are `Duration.Input` (a number is milliseconds) and are rounded up
 * to whole ms. Values present when the scheduler is built are its defaults; a per-call provision of
 * this reference overlays them field by field.
 */
export interface ScheduleConfiguration {
  /** Retry floor, >= 1 s. Default 1 s. */
  readonly minimumRetryDelay?: Duration.Input
  /** Integer >= 1. Default 8 unchanged attempts before parking. */
  readonly unchangedAttemptBudget?: number
  /** Parked recovery interval, >= 1 h and >= `minimumRetryDelay`. Default 1 h. */
  readonly parkedRetryDelay?: Duration.Input
  /** Repeat floor, >= 1 s. Default 60 s. */
  readonly minimumRepeatInterval?: Duration.Input
}

/**
 * The configuration reference; default `{}` (all defaults). Provide with `Effect.provideService`. Its key is
 * upstream's, so an upstream-shaped implementation reads the same reference with no bridge.
 */
export const ScheduleConfiguration = Context.Reference<ScheduleConfiguration>(
  "effect-cf/DurableObjectAlarm/ScheduleConfiguration",
  { defaultValue: () => ({}) }
)

/** The configuration after validation: every field a safe integer in ms (or attempts). */
export interface ResolvedScheduleConfiguration {
  readonly minimumRetryDelayMs: number
  readonly unchangedAttemptBudget: number
  readonly parkedRetryDelayMs: number
  readonly minimumRepeatIntervalMs: number
}

/** Receives each new parked episode after commit (R27). Failures are swallowed. */
export type AlarmReporterFn = (event: AlarmParked) => Effect.Effect<void>

/** The reporter reference (upstream's key); the default logs a warning. */
export const AlarmReporter = Context.Reference<AlarmReporterFn>("effect-cf/DurableObjectAlarm/AlarmReporter", {
  defaultValue: () => (event) => Effect.logWarning(event)
})

// ---------------------------------------------------------------------------------------------
// Errors (every message says what to do)
// ---------------------------------------------------------------------------------------------

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : JSON.stringify(cause) ?? String(cause)

/** The schedule configuration (defaults or per-call overlay) violates R1. Nothing was written. */
export class InvalidScheduleConfigurationError extends Data.TaggedError("InvalidScheduleConfigurationError")<{
  readonly cause: unknown
}> {
  override get message(): string {
    return `Invalid alarm schedule configuration: ${describe(this.cause)}. ` +
      "Use minimumRetryDelay >= 1 second, an integer unchangedAttemptBudget >= 1, " +
      "parkedRetryDelay >= 1 hour and >= minimumRetryDelay, and minimumRepeatInterval >= 1 second."
  }
}

/** The alarm reference is invalid: empty tag or id, an unknown tag (typed definitions), or a bad `progress`. */
export class InvalidAlarmRefError extends Data.TaggedError("InvalidAlarmRefError")<{
  readonly cause: unknown
}> {
  override get message(): string {
    return `Invalid alarm reference: ${describe(this.cause)}. ` +
      "Pass a non-empty tag and id (a tag declared in the definitions), and a non-negative integer progress."
  }
}

/** `repeatEvery` is not finite or is below `minimumRepeatInterval`. */
export class InvalidRepeatEveryError extends Data.TaggedError("InvalidRepeatEveryError")<{
  readonly cause: unknown
}> {
  override get message(): string {
    return `Invalid alarm repeatEvery: ${describe(this.cause)}. ` +
      "Pass a finite duration at least the configured minimumRepeatInterval (default 60 seconds), or omit it."
  }
}

/** The payload cannot be encoded as JSON (or does not match its typed definition). */
export class InvalidAlarmPayloadError extends Data.TaggedError("InvalidAlarmPayloadError")<{
  readonly cause: unknown
}> {
  override get message(): string {
    return `Invalid alarm payload: ${describe(this.cause)}. ` +
      "Pass a JSON value (no undefined, functions, bigint, cycles or non-finite numbers)."
  }
}

/** `processDueAlarms` options are invalid (R20). No row was touched. */
export class InvalidProcessDueAlarmsOptionsError extends Data.TaggedError("InvalidProcessDueAlarmsOptionsError")<{
  readonly cause: unknown
}> {
  override get message(): string {
    return `Invalid processDueAlarms options: ${describe(this.cause)}. ` +
      "Pass limit as a positive safe integer and retryFailedAfter as a finite duration > 0."
  }
}

/**
 * A storage operation failed or was refused: SQL failed, the platform alarm could not be set, or a
 * handle was used outside its transaction (a forked fiber, an escaped handle, a pass that has ended).
 * The transaction it belonged to was rolled back.
 */
export class StorageOperationError extends Data.TaggedError("StorageOperationError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `Alarm storage operation ${this.operation} failed: ${describe(this.cause)}. ` +
      "Run alarm mutations on the transaction closure's own fiber while it is active; " +
      "if the database failed, retry the whole operation."
  }
}

/** A stored row could not be decoded (payload not JSON, unknown typed tag). Reported as a handler failure. */
export class StoredAlarmDecodeError extends Data.TaggedError("StoredAlarmDecodeError")<{
  readonly cause: unknown
  /** The row's storage id (upstream's field). */
  readonly storageId: string
  readonly tag: string
  readonly id: string
}> {
  override get message(): string {
    return `Stored alarm ${this.tag}/${this.id} could not be decoded: ${describe(this.cause)}. ` +
      "Cancel it or re-schedule it with a valid payload; until then it backs off and parks like a failure."
  }
}

/** Every error an alarm scheduler method can fail with. */
export type AlarmSchedulerError =
  | InvalidScheduleConfigurationError
  | InvalidAlarmRefError
  | InvalidRepeatEveryError
  | InvalidAlarmPayloadError
  | InvalidProcessDueAlarmsOptionsError
  | StorageOperationError

/** Errors of `scheduleAlarm` / `scheduleAlarmEarlier`. */
export type ScheduleAlarmError =
  | InvalidAlarmPayloadError
  | InvalidAlarmRefError
  | InvalidRepeatEveryError
  | InvalidScheduleConfigurationError
  | StorageOperationError

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

/**
 * Mutations owned by one `transaction` closure. Run them on the closure's own fiber while it runs;
 * forked work and use after the closure ends fail with `StorageOperationError` (R5).
 */
export interface AlarmTransaction {
  readonly scheduleAlarm: (input: ScheduleAlarmInput) => Effect.Effect<void, ScheduleAlarmError>
  readonly scheduleAlarmEarlier: (input: ScheduleAlarmInput) => Effect.Effect<void, ScheduleAlarmError>
  readonly cancelAlarm: (input: AlarmRef) => Effect.Effect<void, InvalidAlarmRefError | StorageOperationError>
}

/**
 * The alarm scheduler. It owns the platform alarm exclusively (R6): after every transaction the
 * platform alarm equals the smallest effective wake time, or is deleted when nothing is stored.
 */
export interface AlarmScheduler extends AlarmTransaction {
  /** Arm (or replace) a logical alarm; a one-mutation transaction (R7). */
  readonly scheduleAlarm: (input: ScheduleAlarmInput) => Effect.Effect<void, ScheduleAlarmError>
  /** Min-merge a logical deadline: an existing earlier alarm keeps its time, payload and repeat (R16). */
  readonly scheduleAlarmEarlier: (input: ScheduleAlarmInput) => Effect.Effect<void, ScheduleAlarmError>
  /** Forget an alarm with its budget, parking and cursor (R19). A missing alarm is not an error. */
  readonly cancelAlarm: (input: AlarmRef) => Effect.Effect<void, InvalidAlarmRefError | StorageOperationError>
  /** Inspect retained work (R28); undefined when no such alarm is stored. */
  readonly getAlarmStatus: (
    input: AlarmRef
  ) => Effect.Effect<AlarmStatus | undefined, InvalidAlarmRefError | StorageOperationError>
  /**
   * Run `closure` in one storage transaction with an `AlarmTransaction` handle (R4): reconcile the
   * platform alarm before commit, report new parked episodes after commit. A failure of the closure
   * rolls everything back.
   */
  readonly transaction: <A, E, R>(
    closure: (alarms: AlarmTransaction) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StorageOperationError, R>
  /**
   * Dispatch due alarms by effective wake time, then storage key (R20-R26). Handler failures do not
   * fail the call; invalid options and a failing `onFailure` do.
   */
  readonly processDueAlarms: <R = never, E = never, OnFailureR = never, OnFailureE = never>(
    handle: ProcessDueAlarmsHandler<R, E>,
    options?: ProcessDueAlarmsOptions<OnFailureR, OnFailureE>
  ) => Effect.Effect<
    ProcessDueAlarmsResult,
    | OnFailureE
    | InvalidProcessDueAlarmsOptionsError
    | InvalidScheduleConfigurationError
    | StorageOperationError,
    R | OnFailureR
  >
}

// ---------------------------------------------------------------------------------------------
// Binding an implementation
// ---------------------------------------------------------------------------------------------

/** What an implementation is given to build a scheduler over one isolated database. */
export interface AlarmsDependencies {
  /** The database client; all scheduler tables live here. */
  readonly sql: SqlClient.SqlClient
  /** The SQL dialect of `sql`. */
  readonly dialect: Dialect
  /** The single platform alarm slot; writes inside a `sql` transaction roll back with it. */
  readonly platformAlarm: PlatformAlarm
}

/**
 * An alarm scheduler implementation the suite can certify. `make` may be called several times on the
 * same database: a second call models a restart (the scheduler is rebuilt from storage). It reads
 * `ScheduleConfiguration` at build time (R1 defaults) and may migrate tables (R3).
 *
 * @example
 * ```ts
 * export const myAlarms: AlarmsImplementation = {
 *   name: "my-scheduler",
 *   make: ({ sql, platformAlarm }) => makeMyScheduler(sql, platformAlarm)
 * }
 * ```
 */
export interface AlarmsImplementation {
  /** Short stable name used in reports. */
  readonly name: string
  readonly make: (
    deps: AlarmsDependencies
  ) => Effect.Effect<AlarmScheduler, InvalidScheduleConfigurationError | StorageOperationError>
}
