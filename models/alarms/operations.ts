/**
 * Operations the model steps through: plain JSON data, one per public call or environment change.
 */
import type { Json } from "../../harness/Property.ts"
import type { ScheduleConfigurationInput } from "./configuration.ts"
import type { AlarmRef } from "./storageId.ts"
import type { DispatchRacer } from "./race.ts"

/**
 * Payloads containing an object with this own key stand for a value the implementation cannot encode
 * as JSON (the property substitutes a bigint, NaN, Infinity, a function, a Date or undefined, by the
 * key's value); the model predicts `InvalidAlarmPayloadError`.
 */
export const UNENCODABLE_PAYLOAD_KEY = "$unencodable"

/** Input of `scheduleAlarm` / `scheduleAlarmEarlier`; times in epoch ms, `repeatEveryMs` a duration in ms. */
export interface ScheduleInput extends AlarmRef {
  readonly payload: Json
  readonly runAtMs: number
  readonly repeatEveryMs?: number
  /** Monotonic source cursor: a non-negative integer. */
  readonly progress?: number
}

/** One handle mutation inside a transaction (or a handler's standalone call). */
export type Mutation =
  | { readonly kind: "scheduleAlarm"; readonly input: ScheduleInput }
  | { readonly kind: "scheduleAlarmEarlier"; readonly input: ScheduleInput }
  | { readonly kind: "cancelAlarm"; readonly ref: AlarmRef }

/**
 * A mutation inside a `transaction` closure. `misuse` (R5): `forkedFiber` calls the handle from a fiber
 * the closure forked (rejected; the closure catches the error and goes on); `afterTransaction` keeps the
 * handle and calls it after the transaction ended (rejected, writes nothing).
 */
export type TransactionMutation = Mutation & { readonly misuse?: "forkedFiber" | "afterTransaction" }

/**
 * A fault injected into the `transaction`-th storage transaction (1-based) this operation runs
 * (see `StepOutcome.transactions` for the order). `inside`: process crash before commit (nothing
 * commits; the operation stops; the service is rebuilt). `afterCommit`: crash after commit, before
 * the park reports (committed, reports lost; the operation stops; the service is rebuilt).
 * `lostReply`: the transaction commits but the caller sees a storage failure (`StorageOperationError`,
 * reason `lostReply`), so it acts as if the transaction had failed: no park reports, the operation
 * goes on as after any failed transaction (no crash).
 * `setAlarmFails`: the platform alarm write fails, so the transaction rolls back with
 * `StorageOperationError` (no crash); when the transaction leaves the platform alarm at the value it
 * already had, an implementation may skip the write (R6 fixes the value only), so the model voids the
 * fault and the harness does not inject it.
 * `commitRefused`: the closure and the reconcile ran, then the database refuses the COMMIT, so the
 * transaction rolls back (rows and platform alarm as they were, R4, R6), no park report is sent (R27)
 * and the caller sees `StorageOperationError` (reason `commitRefused`); the process goes on (no crash,
 * no rebuild). `statementFails`: one of the transaction's own statements fails and the transaction rolls back (or, when
 * it runs fewer than `statement`, its COMMIT is refused): as `commitRefused` for a transaction whose
 * closure succeeds; for one whose closure fails on its own, which error comes first depends on the
 * implementation's statement order, so the model voids the fault (`StepOutcome.faultVoided`) and the
 * harness does not inject it. `readFails` (`transaction` unused): a read outside any transaction fails
 * (a dropped connection): the operation stops there with `StorageOperationError` (reason
 * `readFailed`), what committed before stays, no rebuild; where it struck is `readPoint`. The same
 * shape as the harness's `StorageFault`.
 */
export interface TransactionFault {
  readonly transaction: number
  readonly phase: "inside" | "afterCommit" | "lostReply" | "setAlarmFails" | "commitRefused" | "statementFails" | "readFails"
  /**
   * For `statementFails`: which outermost-level statement fails (the model needs no statement count);
   * for `readFails`: the harness's count of the implementation's reads outside any transaction.
   */
  readonly statement?: number
  /**
   * For `readFails`, the model's read point where the read failed (`run.ts`, `readFailsHere`), set
   * once the harness saw the read fail; absent, the read never failed and the step is as without it.
   */
  readonly readPoint?: number
}

/** What a handler does during its pass: a standalone call, or an explicit transaction. */
export type HandlerWrite =
  | Mutation
  | { readonly kind: "transaction"; readonly mutations: ReadonlyArray<Mutation>; readonly closureFails?: boolean }

/** What `onFailure` does for a failed event (default `none`: no onFailure given, i.e. `retry`). */
export type OnFailureScript =
  | { readonly kind: "none" }
  | { readonly kind: "returnsVoid" }
  /** `onFailure` returns `null` (a JavaScript caller's "no action"): the default action `retry` (R24). */
  | { readonly kind: "returnsNull" }
  /** `objectForm`: `onFailure` returns `{ mode: "retry" }` instead of `"retry"` (same behaviour, R24). */
  | { readonly kind: "retry"; readonly objectForm?: boolean }
  | { readonly kind: "retryAfter"; readonly retryFailedAfterMs: number }
  /** `objectForm`: `{ mode: "skip-and-advance-repeat" }` instead of the string (same behaviour, R24). */
  | { readonly kind: "skipAndAdvanceRepeat"; readonly objectForm?: boolean }
  /**
   * Outside the static type: `onFailure` returns an object whose `mode` is neither action, without a
   * `retryFailedAfter` (R24: anything but `skip-and-advance-repeat` reschedules, with the base delay).
   */
  | { readonly kind: "unknownMode" }
  | { readonly kind: "fails" }

/**
 * A handler's behaviour for one event: `writes` run in order (the first failing write makes the handler
 * fail), then `outcome` (default `succeed`). `forkedWrite` is attempted by a fiber the handler forked,
 * after the whole `processDueAlarms` call returned (the pass has ended).
 */
export interface HandlerScript {
  readonly writes?: ReadonlyArray<HandlerWrite>
  readonly outcome?: "succeed" | "fail"
  readonly onFailure?: OnFailureScript
  readonly forkedWrite?: Mutation
}

/** A handler script for the event of one alarm (events without a script succeed with no writes). */
export interface HandlerScriptEntry extends AlarmRef {
  readonly script: HandlerScript
}

/**
 * Options of `processDueAlarms`; `retryFailedAfterMs` is the failure base delay. `withoutOnFailure`
 * describes the call, not an option: no `onFailure` callback is passed (every failure takes the
 * default action `retry`, R24), and with neither `limit` nor `retryFailedAfterMs` the call passes no
 * options object at all (`processDueAlarms(handler)`: the defaults of R20).
 */
export interface ProcessOptions {
  readonly limit?: number
  readonly retryFailedAfterMs?: number
  readonly withoutOnFailure?: boolean
}

/** Every operation the model understands. `nowMs` is the virtual clock when the call runs. */
export type Operation =
  | {
    readonly kind: "scheduleAlarm" | "scheduleAlarmEarlier"
    readonly nowMs: number
    readonly input: ScheduleInput
    readonly fault?: TransactionFault
    readonly reporterFails?: boolean
  }
  | { readonly kind: "cancelAlarm"; readonly nowMs: number; readonly ref: AlarmRef; readonly fault?: TransactionFault }
  | { readonly kind: "getAlarmStatus"; readonly ref: AlarmRef; readonly fault?: TransactionFault }
  | {
    readonly kind: "transaction"
    readonly nowMs: number
    readonly mutations: ReadonlyArray<TransactionMutation>
    /** The closure fails (after its mutations) with its own error: nothing commits. */
    readonly closureFails?: boolean
    readonly fault?: TransactionFault
    readonly reporterFails?: boolean
  }
  | {
    readonly kind: "processDueAlarms"
    readonly nowMs: number
    readonly options?: ProcessOptions
    readonly handlers?: ReadonlyArray<HandlerScriptEntry>
    readonly fault?: TransactionFault
    readonly reporterFails?: boolean
    /** An external call racing the batch, and where it lands (`race.ts`, the `alarms/race` property). */
    readonly racer?: DispatchRacer
    /**
     * The options are checked before the configuration. No rule orders the two for a dispatch (R8
     * orders a schedule's checks only), so this is an allowed alternative, set only by
     * `operationAlternatives` (`alternatives.ts`).
     */
    readonly optionsCheckedFirst?: true
  }
  /** The ambient `ScheduleConfiguration` reference changes (captured defaults stay until a rebuild). */
  | { readonly kind: "configure"; readonly configuration: ScheduleConfigurationInput }
  /**
   * The service is rebuilt from storage (restart): captured defaults := the ambient reference.
   * `knownTags` (a deploy with other typed definitions, R29): the tags the rebuilt process declares,
   * null for the untyped scheduler; absent: unchanged.
   */
  | {
    readonly kind: "rebuildService"
    readonly knownTags?: ReadonlyArray<string> | null
    /** With `knownTags`: those of them whose payload schema takes numbers only (default none). */
    readonly numberTags?: ReadonlyArray<string>
  }

/** The `processDueAlarms` operation. */
export type ProcessDueAlarmsOperation = Extract<Operation, { readonly kind: "processDueAlarms" }>
/** The external `scheduleAlarm` / `scheduleAlarmEarlier` operation. */
export type ScheduleOperation = Extract<Operation, { readonly kind: "scheduleAlarm" | "scheduleAlarmEarlier" }>
/** The `transaction` operation. */
export type TransactionOperation = Extract<Operation, { readonly kind: "transaction" }>
