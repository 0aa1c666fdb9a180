/**
 * The named pieces the alarm scheduler is composed of, and the correct defaults.
 *
 * `makeAlarmScheduler(pieces)` (make.ts) wires the pieces into the transaction, scheduling and
 * dispatch skeleton. The shipped implementation uses `defaultAlarmPieces`. A known-bad variant used to
 * test the suite replaces exactly one piece (`{ ...defaultAlarmPieces, acknowledge: contentMatchAck }`);
 * the shipped code has no bug flags. Each piece cites the rules it realises.
 */
import { Clock, Effect, Exit } from "effect"
import type { Duration } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import type { PlatformAlarm } from "../../adapters/contract.ts"
import type { OnFailureAction, ResolvedScheduleConfiguration, ScheduleConfiguration } from "./api.ts"
import { InvalidProcessDueAlarmsOptionsError } from "./api.ts"
import { SCHEDULED_TABLE } from "./schema.ts"
import type { AlarmStore, StoredAlarm } from "./store.ts"
import { ALARM_ROWS_SELECT, decodeStoredAlarm } from "./store.ts"
import {
  backoffRetryDelayMs,
  failureActionDelay,
  failureActionMode,
  resolveScheduleConfiguration,
  strictRepeatEveryMs,
  validateFailureDelayMs
} from "./validation.ts"

/** Kinds of mutation a transaction made, in order (the reconcile piece may look at them). */
export type MutationKind = "schedule" | "cancel" | "acknowledge" | "reschedule"

/** Attempt state written for one row, without its revision (the runtime draws a fresh one). */
export interface AttemptWrite {
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number | null
  readonly progress: number
}

/** What effectful pieces may use: the statements, the platform alarm and shared writers. */
export interface PieceRuntime {
  readonly store: AlarmStore
  readonly platformAlarm: PlatformAlarm
  /**
   * Writes the attempts row with a fresh revision (R17), then the materialised `wake_at`
   * (via the `effectiveWakeMs` piece) for a row whose `run_at` is `runAtMs`.
   */
  readonly writeAttemptState: (storageId: string, state: AttemptWrite, runAtMs: number) => Effect.Effect<void, SqlError>
}

/** Inputs of the schedule attempt computation (R13). */
export interface ScheduleAttemptsInput {
  /** The pass-start snapshot of the row being handled, when scheduling from inside a pass. */
  readonly source: StoredAlarm | undefined
  /** The currently stored row of the target, if any. */
  readonly existing: StoredAlarm | undefined
  /** True when no pass, a forward cursor, or the pass's own cursor moved (R12): a fresh budget. */
  readonly fresh: boolean
  readonly budget: number
}

/** Inputs of the parking decision (R14, R25). */
export interface ParkingInput {
  readonly attempts: number
  readonly budget: number
  /** The source or existing row (schedule), or the failed row (reschedule), is parked already. */
  readonly wasParked: boolean
}

/** Inputs of the failure retry plan (R25). */
export interface FailureRetryInput {
  readonly configuration: ResolvedScheduleConfiguration
  /** Base delay for this failure (option or action `retryFailedAfter`, floored). */
  readonly baseDelayMs: number
  readonly nowMs: number
  /** The parking piece, so a plan stays consistent with it. */
  readonly isParked: (input: ParkingInput) => boolean
  /** The retry delay piece. */
  readonly retryDelayMs: AlarmPieces["retryDelayMs"]
}

/** New attempt state and deadline of a failed row. */
export interface FailureRetryPlan {
  readonly attempts: number
  readonly parked: boolean
  readonly retryAtMs: number
  /** The logical deadline after the failure (R25: unchanged). */
  readonly runAtMs: number
}

/** What to do after a failure once `onFailure` ran (R24). */
export type FailureDecision =
  | {
    readonly mode: "retry"
    readonly delayMs: number
    /** An invalid action delay: the base delay is used, then this error fails the call. */
    readonly delayError: InvalidProcessDueAlarmsOptionsError | undefined
  }
  | { readonly mode: "advance" }
  /** Write nothing for the row (only a known-bad variant decides this). */
  | { readonly mode: "none" }

/** Inputs of the failure decision. */
export interface FailureDecisionInput {
  /** Exit of `onFailure` (success `undefined` when there is no `onFailure`). */
  readonly actionExit: Exit.Exit<OnFailureAction | void, unknown>
  readonly baseDelayMs: number
  readonly configuration: ResolvedScheduleConfiguration
}

/** The steps of one transaction, handed to `commitThenReport` to put in order. */
export interface TransactionSteps<A, E, R> {
  /** Runs an effect inside one storage transaction (commits on success, rolls back on failure). */
  readonly transact: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y | SqlError, Z>
  /** The closure (with the handle deactivated when it ends). */
  readonly body: Effect.Effect<A, E, R>
  /** Reconcile of the platform alarm (preceded by the `alarms.beforeReconcile` hook point). */
  readonly reconcile: Effect.Effect<void, SqlError>
  /** The `alarms.afterCommitBeforeReport` hook point. */
  readonly afterCommit: Effect.Effect<void>
  /** Delivery of queued park reports (R27). */
  readonly report: Effect.Effect<void, SqlError>
}

/** The pieces of an alarm scheduler. */
export interface AlarmPieces {
  /** R1: validates merged configuration; throws an Error describing the violation. */
  readonly resolveConfiguration: (input: ScheduleConfiguration) => ResolvedScheduleConfiguration
  /** R8: stored `repeat_every_ms` (or null); throws when invalid. */
  readonly repeatEveryMs: (
    input: Duration.Input | undefined,
    configuration: ResolvedScheduleConfiguration
  ) => number | null
  /** R11/R12: does an input cursor count as progress over the stored cursor? */
  readonly cursorAdvances: (inputProgress: number, storedProgress: number) => boolean
  /** R13: attempts charged by a schedule. */
  readonly scheduleAttempts: (input: ScheduleAttemptsInput) => number
  /** R14/R25: is the row parked after this write? */
  readonly isParked: (input: ParkingInput) => boolean
  /** R2: retry delay after `attempts` unchanged attempts. */
  readonly retryDelayMs: (
    attempts: number,
    parked: boolean,
    baseDelayMs: number,
    configuration: ResolvedScheduleConfiguration
  ) => number
  /** R25: the new state of a failed row whose revision is unchanged. */
  readonly planFailureRetry: (row: StoredAlarm, input: FailureRetryInput) => FailureRetryPlan
  /** R24: the action after `onFailure`. */
  readonly decideFailure: (input: FailureDecisionInput) => FailureDecision
  /** Stored effective wake: `max(run_at, retry_at ?? run_at)`. */
  readonly effectiveWakeMs: (runAtMs: number, retryAtMs: number | null) => number
  /** R18/R25: does this write open a new parked episode (queue one report)? */
  readonly opensParkedEpisode: (wasParked: boolean, parkedNow: boolean) => boolean
  /** R5: may a handle mutate? `onOwnerFiber`: the caller runs on the closure's own fiber. */
  readonly handleAllowsMutation: (input: { readonly active: boolean; readonly onOwnerFiber: boolean }) => boolean
  /** R9: may a schedule made from a pass proceed? */
  readonly passAllowsSchedule: (pass: { readonly active: boolean }) => boolean
  /** R23: conditional acknowledgement of a handled row (in the caller's transaction). */
  readonly acknowledge: (
    runtime: PieceRuntime,
    row: StoredAlarm,
    configuration: ResolvedScheduleConfiguration
  ) => Effect.Effect<void, SqlError>
  /** R21: the due rows, in dispatch order, at most `limit`. */
  readonly selectDue: (
    runtime: PieceRuntime,
    nowMs: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<StoredAlarm>, SqlError>
  /** R6: set the platform alarm to the smallest wake, or delete it (in the caller's transaction). */
  readonly reconcile: (runtime: PieceRuntime, mutations: ReadonlyArray<MutationKind>) => Effect.Effect<void, SqlError>
  /**
   * R4: the first statement of every scheduler transaction, serializing scheduler transactions across
   * independent connections (`lockSql`: the dialect's `transactionLockSql`; null: nothing to take).
   */
  readonly transactionLock: (runtime: PieceRuntime, lockSql: string | null) => Effect.Effect<void, SqlError>
  /** R4/R27: order closure, reconcile, commit and report. */
  readonly commitThenReport: <A, E, R>(steps: TransactionSteps<A, E, R>) => Effect.Effect<A, E | SqlError, R>
}

// ---------------------------------------------------------------------------------------------
// Correct defaults
// ---------------------------------------------------------------------------------------------

/** R13 as written. */
export const defaultScheduleAttempts = ({ budget, existing, fresh, source }: ScheduleAttemptsInput): number => {
  if (fresh || source === undefined) return 0
  if (source.parked || existing?.parked === true) return Math.max(source.attempts, existing?.attempts ?? 0)
  return Math.min(budget, Math.max(source.attempts + 1, existing?.attempts ?? 0))
}

/** R14: parking is sticky until progress. */
export const defaultIsParked = ({ attempts, budget, wasParked }: ParkingInput): boolean =>
  attempts > 0 && (attempts >= budget || wasParked)

/** R25 as written: charge once unless parked, keep `run_at`. */
export const defaultPlanFailureRetry = (row: StoredAlarm, input: FailureRetryInput): FailureRetryPlan => {
  const budget = input.configuration.unchangedAttemptBudget
  const attempts = row.parked ? row.attempts : Math.min(budget, row.attempts + 1)
  const parked = input.isParked({ attempts, budget, wasParked: row.parked })
  return {
    attempts,
    parked,
    retryAtMs: input.nowMs + input.retryDelayMs(attempts, parked, input.baseDelayMs, input.configuration),
    runAtMs: row.runAtMs
  }
}

/** R24 as written: a failed `onFailure` still retries with the base delay. */
export const defaultDecideFailure = ({ actionExit, baseDelayMs, configuration }: FailureDecisionInput): FailureDecision => {
  const action = Exit.isSuccess(actionExit) ? actionExit.value : undefined
  if (action !== undefined && action !== null && failureActionMode(action) === "skip-and-advance-repeat") {
    return { mode: "advance" }
  }
  const delayInput = action === undefined || action === null ? undefined : failureActionDelay(action)
  if (delayInput === undefined) return { mode: "retry", delayMs: baseDelayMs, delayError: undefined }
  try {
    return {
      mode: "retry",
      delayMs: validateFailureDelayMs(delayInput, configuration.minimumRetryDelayMs),
      delayError: undefined
    }
  } catch (cause) {
    return { mode: "retry", delayMs: baseDelayMs, delayError: new InvalidProcessDueAlarmsOptionsError({ cause }) }
  }
}

/** R23 as written: delete a one-shot, or advance a repeat and reset its attempts, if the revision matches. */
export const revisionAcknowledge = (
  runtime: PieceRuntime,
  row: StoredAlarm,
  configuration: ResolvedScheduleConfiguration
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (row.repeatEveryMs === null) {
      const deleted = yield* runtime.store.deleteRowIfRevision(row.storageId, row.revision)
      if (deleted) yield* runtime.store.deleteAttempts(row.storageId)
      return
    }
    const nowMs = yield* Clock.currentTimeMillis
    const runAtMs = nowMs + Math.max(configuration.minimumRepeatIntervalMs, row.repeatEveryMs)
    const updated = yield* runtime.store.setRunAtIfRevision(row.storageId, row.revision, runAtMs)
    // A completed repeat is progress: fresh budget; missed occurrences are never replayed.
    if (updated) {
      yield* runtime.writeAttemptState(row.storageId, {
        attempts: 0,
        parked: false,
        retryAtMs: null,
        progress: row.progress
      }, runAtMs)
    }
  })

/** R21 as written: due by wake, ordered by `(wake_at, storage_id)`. */
export const wakeOrderedSelectDue = (
  runtime: PieceRuntime,
  nowMs: number,
  limit: number
): Effect.Effect<ReadonlyArray<StoredAlarm>, SqlError> => {
  const sql = runtime.store.sql
  return sql<Record<string, unknown>>`${sql.literal(ALARM_ROWS_SELECT)}
    WHERE a.wake_at <= ${nowMs} ORDER BY a.wake_at, a.storage_id LIMIT ${limit}`.pipe(
    Effect.map((rows) => rows.map(decodeStoredAlarm))
  )
}

/** R6 as written: the platform alarm equals the smallest `wake_at` (ties by storage_id), or is deleted. */
export const smallestWakeReconcile = (runtime: PieceRuntime): Effect.Effect<void, SqlError> => {
  const sql = runtime.store.sql
  return sql<{ readonly wake_at: unknown }>`SELECT wake_at FROM ${sql.literal(SCHEDULED_TABLE)}
    ORDER BY wake_at, storage_id LIMIT 1`.pipe(
    Effect.flatMap((rows) =>
      rows[0] === undefined
        ? runtime.platformAlarm.delete
        : runtime.platformAlarm.set(Number(rows[0].wake_at))
    )
  )
}

/** R4/R27 as written: closure and reconcile in one transaction; reports only after commit. */
export const reportAfterCommit = <A, E, R>(steps: TransactionSteps<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.gen(function*() {
    const result = yield* steps.transact(Effect.flatMap(steps.body, (a) => Effect.as(steps.reconcile, a)))
    yield* steps.afterCommit
    yield* steps.report
    return result
  })

/** R4 as the README states it: take the dialect's transaction lock (Postgres: `pg_advisory_xact_lock`). */
export const dialectTransactionLock = (runtime: PieceRuntime, lockSql: string | null): Effect.Effect<void, SqlError> =>
  lockSql === null ? Effect.void : Effect.asVoid(runtime.store.sql.unsafe(lockSql))

/** The correct pieces: the shipped implementation. */
export const defaultAlarmPieces: AlarmPieces = {
  resolveConfiguration: resolveScheduleConfiguration,
  repeatEveryMs: strictRepeatEveryMs,
  cursorAdvances: (inputProgress, storedProgress) => inputProgress > storedProgress,
  scheduleAttempts: defaultScheduleAttempts,
  isParked: defaultIsParked,
  retryDelayMs: backoffRetryDelayMs,
  planFailureRetry: defaultPlanFailureRetry,
  decideFailure: defaultDecideFailure,
  effectiveWakeMs: (runAtMs, retryAtMs) => Math.max(runAtMs, retryAtMs ?? runAtMs),
  opensParkedEpisode: (wasParked, parkedNow) => parkedNow && !wasParked,
  handleAllowsMutation: ({ active, onOwnerFiber }) => active && onOwnerFiber,
  passAllowsSchedule: (pass) => pass.active,
  acknowledge: revisionAcknowledge,
  selectDue: wakeOrderedSelectDue,
  reconcile: smallestWakeReconcile,
  transactionLock: dialectTransactionLock,
  commitThenReport: reportAfterCommit
}
