/**
 * The mutable scratchpad of one `step` (never visible outside it) and the storage-transaction runner:
 * draft, closure, fault, commit, reconcile the platform alarm (R6), then report new parking (R27).
 */
import type { AlarmStatus, ModelError, ParkedReport } from "./results.ts"
import type { Situation } from "./situations.ts"
import {
  assertRowInvariants,
  type ModelState,
  platformAlarmFor,
  type Provenance,
  readRow,
  type ReporterCall,
  type RowView,
  type ScheduledRow
} from "./state.ts"
import { voidsStorageFault } from "../../harness/Faults.ts"
import type { TransactionFault } from "./operations.ts"

/** A handler pass (R22): the row snapshot read at batch start, whether it is still running, the batch's parked list. */
export interface Pass {
  readonly snapshot: RowView
  active: boolean
  readonly parked: Array<ParkedReport>
  /** Schedules made in this pass so far (for the "charged once per pass" situation). */
  schedules: number
}

/** One storage transaction the step ran, in order. */
export interface TransactionRecord {
  /** 1-based position among this step's transactions; what `TransactionFault.transaction` counts. */
  readonly ordinal: number
  /** e.g. `scheduleAlarm`, `transaction`, `handler:<storageId>`, `acknowledge:<storageId>`, `failure:<storageId>`, `reconcile`, `forked:<storageId>`. */
  readonly label: string
  readonly outcome: "committed" | "committedReplyLost" | "rolledBack" | "commitRefused" | "statementFailed" | "crashedInside" | "crashedAfterCommit"
  /** Platform alarm after the transaction (unchanged when it did not commit). */
  readonly platformAlarmMs: number | null
}

/** The uncommitted rows a transaction closure edits. */
export interface TransactionDraft {
  rows: Record<string, ScheduledRow>
  nextRevision: number
  forgotten: Record<string, Provenance>
  /** Storage ids queued for a park report (R18). */
  readonly reports: Array<string>
}

/** A closure's outcome: success, or a failure that rolls the transaction back. */
export type ClosureOutcome<A> =
  | { readonly ok: true; readonly value: A }
  | { readonly ok: false; readonly error: ModelError; readonly rules: ReadonlyArray<string>; readonly why: string }

/** Thrown (inside the model only) when an injected crash stops the operation. */
export class CrashSignal {
  constructor(readonly transaction: number, readonly phase: "inside" | "afterCommit") {}
}

/** The scratchpad of one step. */
export interface StepRun {
  state: ModelState
  readonly nowMs: number
  readonly fault: TransactionFault | undefined
  readonly reporterFails: boolean
  readonly transactions: Array<TransactionRecord>
  readonly reporterCalls: Array<ReporterCall>
  readonly situations: Set<Situation>
  /** Per park report of this step, the rules and reason that parked its row (by report identity). */
  readonly reportWhy: Map<ParkedReport, { readonly rules: ReadonlyArray<string>; readonly why: string }>
  /**
   * Rows whose acknowledgement was a no-op because the handler wrote them: the status an
   * acknowledgement that ignored that write would have left instead (null: deleted). It names the H1
   * anomaly when an implementation's row matches it.
   */
  readonly ackIgnoringWrite: Map<string, AlarmStatus | null>
  /** Storage ids handed to the handler, in call order (a row failing before its handler is not, R22, R29). */
  readonly handlerCalls: Array<string>
  /** Storage ids selected as due but skipped as gone or changed earlier in the batch (R22), in dispatch order. */
  readonly staleSkipped: Array<string>
  /**
   * Whether the fault is void, so the harness does not inject it: a `statementFails` fault named a
   * transaction whose closure fails on its own (which error comes first depends on the implementation's
   * statement order), or a `setAlarmFails` fault named a transaction that leaves the platform alarm as it was.
   */
  faultVoided: boolean
  /** Why the fault is void, in words (undefined: the harness's words for a statement fault). */
  faultVoidedWhy: string | undefined
  /** Read points passed so far (`readFailsHere`): places the operation may read outside any transaction. */
  readPoints: number
}

/** Words of a `setAlarmFails` fault voided because the platform alarm already has the reconciled value. */
export const UNCHANGED_ALARM_WORDS =
  "not injected: the platform alarm already has the value this transaction reconciles it to, and whether an implementation writes it again is its own choice (R6)"

/** Starts a scratchpad for one step. */
export const startRun = (
  state: ModelState,
  nowMs: number,
  fault: TransactionFault | undefined,
  reporterFails: boolean
): StepRun => ({ state, nowMs, fault, reporterFails, transactions: [], reporterCalls: [], situations: new Set(), reportWhy: new Map(), ackIgnoringWrite: new Map(), handlerCalls: [], staleSkipped: [], faultVoided: false, faultVoidedWhy: undefined, readPoints: 0 })

/**
 * Passes a read point: a place where an implementation may read outside any transaction (before the
 * operation's first step, before a row's re-read, between a handler and its row's transaction, before
 * a park report's re-read, before the final reconcile). Whether the `readFails` fault failed the read
 * here: its `readPoint` names the point (set by the property, which cannot know where an
 * implementation's n-th read falls, so it weighs every point as an alternative, `harness/Alternatives.ts`).
 */
export const readFailsHere = (run: StepRun): boolean => {
  run.readPoints++
  const failed = run.fault?.phase === "readFails" && run.fault.readPoint === run.readPoints
  if (failed) run.situations.add("faultReadFailed")
  return failed
}

/**
 * The failure of an operation whose read outside any transaction failed: nothing more of it runs,
 * what committed before stays, and the caller sees a storage failure.
 */
export const readFailure = (
  rules: ReadonlyArray<string>,
  why: string
): { readonly ok: false; readonly error: ModelError; readonly rules: ReadonlyArray<string>; readonly why: string } =>
  failWith({ _tag: "StorageOperationError", reason: "readFailed" }, rules, `a read outside any transaction failed ${why}, so the operation stopped there with a storage failure`)

/** Records that the step reached `situation`. */
export const reach = (run: StepRun, situation: Situation): void => {
  run.situations.add(situation)
}

/** The closure failure for an error, with its rules and one sentence. */
export const failWith = (
  error: ModelError,
  rules: ReadonlyArray<string>,
  why: string
): { readonly ok: false; readonly error: ModelError; readonly rules: ReadonlyArray<string>; readonly why: string } => ({
  ok: false,
  error,
  rules,
  why
})

/**
 * Runs one storage transaction: the closure edits a draft; a failure, `setAlarmFails` or `commitRefused`
 * rolls back; a commit reconciles the platform alarm, then park reports go to `pass.parked` (if any) and
 * the reporter.
 * Throws `CrashSignal` for the crash faults.
 */
export const runTransaction = <A>(
  run: StepRun,
  label: string,
  pass: Pass | null,
  closure: (draft: TransactionDraft) => ClosureOutcome<A>
): ClosureOutcome<A> => {
  const ordinal = run.transactions.length + 1
  // A failed read strikes no transaction (`readFailsHere`).
  const fault = run.fault !== undefined && run.fault.phase !== "readFails" && run.fault.transaction === ordinal ? run.fault.phase : undefined
  const before = run.state.platformAlarmMs
  if (fault === "inside") {
    run.transactions.push({ ordinal, label, outcome: "crashedInside", platformAlarmMs: before })
    run.situations.add("crashInsideTransaction")
    throw new CrashSignal(ordinal, "inside")
  }
  const draft: TransactionDraft = {
    rows: { ...run.state.rows },
    nextRevision: run.state.nextRevision,
    forgotten: { ...run.state.forgotten },
    reports: []
  }
  const outcome = closure(draft)
  if (!outcome.ok) {
    if (fault !== undefined && voidsStorageFault(fault, true)) run.faultVoided = true
    run.transactions.push({ ordinal, label, outcome: "rolledBack", platformAlarmMs: before })
    return outcome
  }
  if (fault === "setAlarmFails" && platformAlarmFor(draft.rows) === before) {
    // R6 fixes the platform alarm's value, not that an alarm already at it is written again: an
    // implementation may skip that write, so whether the fault strikes is its choice. Not injected.
    run.faultVoided = true
    run.faultVoidedWhy = UNCHANGED_ALARM_WORDS
  } else if (fault === "setAlarmFails") {
    run.transactions.push({ ordinal, label, outcome: "rolledBack", platformAlarmMs: before })
    run.situations.add("setAlarmFailureRolledBack")
    return failWith(
      { _tag: "StorageOperationError", reason: "setAlarmFailed" },
      ["R6"],
      "the platform alarm write failed, so the whole transaction rolled back"
    )
  }
  if (fault === "commitRefused" || fault === "statementFails") return refuseCommit(run, ordinal, label, draft, fault)
  assertRowInvariants(draft.rows)
  const platformAlarmMs = platformAlarmFor(draft.rows)
  run.state = { ...run.state, rows: draft.rows, nextRevision: draft.nextRevision, forgotten: draft.forgotten, platformAlarmMs }
  run.situations.add(platformAlarmMs === null ? "platformAlarmDeleted" : "platformAlarmSet")
  if (fault === "afterCommit") {
    run.transactions.push({ ordinal, label, outcome: "crashedAfterCommit", platformAlarmMs })
    run.situations.add("crashAfterCommit")
    if (draft.reports.length > 0) run.situations.add("parkReportLost")
    throw new CrashSignal(ordinal, "afterCommit")
  }
  if (fault === "lostReply") {
    // Committed, but the caller sees a storage failure: it never learns of the commit, so no reports.
    run.transactions.push({ ordinal, label, outcome: "committedReplyLost", platformAlarmMs })
    run.situations.add("lostReply")
    return failWith(
      { _tag: "StorageOperationError", reason: "lostReply" },
      ["R4"],
      "the transaction committed but its reply was lost, so the caller saw a storage failure and sent no park reports"
    )
  }
  run.transactions.push({ ordinal, label, outcome: "committed", platformAlarmMs })
  if (!reportParked(run, draft.reports, pass)) {
    return readFailure(["R27"], "after the commit, before a park report's re-read (the commit stays; this and later reports are not sent)")
  }
  return outcome
}

/**
 * The database refused the COMMIT of a transaction whose closure and reconcile ran, or failed one of
 * its statements and the call let the error through, so it rolled back (R4, R6; Postgres aborts it, SQLite
 * undoes the statement and the call's rollback the rest; a call that recovered and committed is judged unfaulted): the draft is dropped (rows, revisions, forgotten cursors
 * and the platform alarm stay as committed before), its queued park reports are never sent (R27:
 * reports follow a commit), and the caller sees `StorageOperationError`. The process goes on with the
 * next statement of the operation.
 */
const refuseCommit = (
  run: StepRun,
  ordinal: number,
  label: string,
  draft: TransactionDraft,
  fault: "commitRefused" | "statementFails"
): ClosureOutcome<never> => {
  const statementFailed = fault === "statementFails"
  run.transactions.push({ ordinal, label, outcome: statementFailed ? "statementFailed" : "commitRefused", platformAlarmMs: run.state.platformAlarmMs })
  run.situations.add(statementFailed ? "statementFailedRolledBack" : "commitRefusedRolledBack")
  if (draft.reports.length > 0) run.situations.add("refusedParkNotReported")
  return failWith(
    { _tag: "StorageOperationError", reason: statementFailed ? "statementFailed" : "commitRefused" },
    // R4 decides the call's outcome (the platform alarm prediction carries R6 on its own).
    draft.reports.length > 0 ? ["R4", "R27"] : ["R4"],
    statementFailed
      ? "one of the transaction's statements failed and the transaction rolled back (or its COMMIT was refused), so nothing of it committed (the platform alarm kept its value, no park report) and the caller saw a storage failure"
      : "the database refused the COMMIT, so nothing of the transaction committed (the platform alarm kept its value, no park report) and the caller saw a storage failure"
  )
}

/**
 * After commit (R27): for each queued id once, re-read; skip if gone, not parked or without retry_at
 * (E9); else a content-free report `{attempts, retryAt = max(run_at, retry_at)}` (E8) to the pass's
 * parked list and to the reporter (whose failure is swallowed). False when a re-read failed
 * (`readFailsHere`): that report and the ones after it are not sent.
 */
export const reportParked = (run: StepRun, storageIds: ReadonlyArray<string>, pass: Pass | null): boolean => {
  for (const storageId of new Set(storageIds)) {
    if (readFailsHere(run)) return false
    const row = readRow(run.state.rows, storageId)
    if (row === undefined || !row.parked || row.retryAtMs === null) {
      run.situations.add("parkReportSkipped")
      continue
    }
    const report: ParkedReport = { attempts: row.attempts, retryAtMs: Math.max(row.runAtMs, row.retryAtMs) }
    // What parked the row decides a missing report as much as R18 does (a report is missing when nothing parked).
    const decidedBy = run.state.rows[storageId]?.decidedBy
    run.reportWhy.set(report, {
      rules: [...(decidedBy?.rules ?? []), "R18", "R27"],
      why: `newly parked in this call and reported once after commit${decidedBy === undefined ? "" : `; it parked because ${decidedBy.why}`}`
    })
    pass?.parked.push(report)
    run.reporterCalls.push({ ...report, reporterFailed: run.reporterFails })
    run.situations.add("parkReported")
    if (run.reporterFails) run.situations.add("reporterFailed")
  }
  return true
}
