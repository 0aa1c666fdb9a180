/**
 * What the model predicts a call returns: a success value, a typed error, or an injected crash.
 */
import type { Json } from "../../harness/Property.ts"

/** Tags of the typed errors (and of the two user-caused failures the model distinguishes). */
export type ModelErrorTag =
  | "InvalidScheduleConfigurationError"
  | "InvalidAlarmRefError"
  | "InvalidRepeatEveryError"
  | "InvalidAlarmPayloadError"
  | "StorageOperationError"
  | "InvalidProcessDueAlarmsOptionsError"
  /** The transaction closure's own error (`closureFails`), propagated unchanged. */
  | "ClosureFailure"
  /** The `onFailure` callback's own error, re-raised after the reschedule committed (R24). */
  | "OnFailureFailure"

/**
 * Why a `StorageOperationError` happened: `detachedWork` is the "cannot schedule detached work after
 * their pass ends" rejection (R9); `inactiveHandle` a transaction handle used off its fiber or after
 * its transaction (R5); `setAlarmFailed` the platform alarm write failed (R6); `lostReply` the commit
 * happened but its reply was lost; `commitRefused` the database refused the COMMIT (R4: nothing commits);
 * `statementFailed` one of its statements failed and its transaction rolled back (R4: nothing commits); `readFailed` a read
 * outside any transaction failed (the operation stops there, what committed before stays).
 */
export type StorageFailureReason = "detachedWork" | "inactiveHandle" | "setAlarmFailed" | "lostReply" | "commitRefused" | "statementFailed" | "readFailed"

/** A predicted error. `reason` is a plain-words detail; for StorageOperationError one of StorageFailureReason. */
export interface ModelError {
  readonly _tag: ModelErrorTag
  readonly reason: string
}

/** An event handed to a handler (`scheduledAtMs` is the row's run_at). */
export interface AlarmEvent {
  readonly id: string
  readonly tag: string
  readonly payload: Json
  readonly scheduledAtMs: number
}

/**
 * A failed dispatch of alarm `tag`/`id`; `event` is null when the stored payload could not be decoded.
 * `causeTag` is the `_tag` of the failure's error (the entry's `cause` is the failure's `Cause`):
 * `StoredAlarmDecodeError` for a row that could not be decoded or whose tag has no typed definition
 * (R22, R29), else the error the handler failed with (its own, or that of a write it made).
 */
export interface FailedDispatch {
  readonly tag: string
  readonly id: string
  readonly event: AlarmEvent | null
  readonly causeTag: string
}

/** A content-free parked report: `retryAtMs` is max(run_at, retry_at) (E8). */
export interface ParkedReport {
  readonly attempts: number
  readonly retryAtMs: number
}

/** The outcome of a write a handler's forked fiber attempted after the pass ended. */
export interface ForkedWriteOutcome {
  readonly ok: boolean
  readonly error: ModelError | null
  /** The error says, in R9's words, that detached work cannot be scheduled after the pass ended. */
  readonly saysPassEnded: boolean
}

/** The value of a successful `processDueAlarms`. */
export interface DispatchResult {
  readonly handled: ReadonlyArray<AlarmEvent>
  readonly failed: ReadonlyArray<FailedDispatch>
  readonly parked: ReadonlyArray<ParkedReport>
}

/** `getAlarmStatus`: `retryAtMs` is the raw retry_at (E8). */
export interface AlarmStatus {
  readonly attempts: number
  readonly parked: boolean
  readonly runAtMs: number
  readonly retryAtMs: number | null
}

/** The outcome of one mutation inside a `transaction` closure. */
export type MutationResult = { readonly _tag: "Success" } | { readonly _tag: "Failure"; readonly error: ModelError }

/**
 * A call's predicted result. `value` is: null for schedule/cancel/configure/rebuild; `AlarmStatus | null`
 * for getAlarmStatus; `{ mutations: MutationResult[] }` for transaction; `DispatchResult` for
 * processDueAlarms. `Crashed`: an injected crash stopped the call (the caller sees a defect).
 */
export type ModelResult =
  | { readonly _tag: "Success"; readonly value: unknown }
  | { readonly _tag: "Failure"; readonly error: ModelError }
  | { readonly _tag: "Crashed"; readonly transaction: number; readonly phase: "inside" | "afterCommit" }
