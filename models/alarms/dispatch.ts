/**
 * `processDueAlarms` (R20-R27): validate options, select due rows by (wake_at, storage_id) up to
 * `limit`, run each event's scripted handler inside a pass, acknowledge or handle the failure in
 * its own transaction, then reconcile in a final empty transaction.
 */
import { acknowledge } from "./acknowledge.ts"
import { reachDispatchBoundaries } from "./boundaries.ts"
import { resolveConfiguration } from "./configuration.ts"
import { applyMutation, mutationTarget } from "./mutation.ts"
import type { HandlerScript, Mutation, OnFailureScript, ProcessOptions, HandlerScriptEntry } from "./operations.ts"
import { rescheduleFailed } from "./reschedule.ts"
import type { AlarmEvent, DispatchResult, FailedDispatch, ForkedWriteOutcome, ModelError, ModelResult, ParkedReport } from "./results.ts"
import { type DispatchRacer, makeRaceInterjection, type RacerOutcome } from "./race.ts"
import { type ClosureOutcome, type Pass, reach, readFailsHere, readFailure, reportParked, runTransaction, type StepRun } from "./run.ts"
import { byWakeThenStorageId, decodePayload, readRow, type RowView } from "./state.ts"
import { storageIdOf } from "./storageId.ts"
import { resolveFailureDelay, resolveLimit } from "./validation.ts"

/** Attribution of one list entry of the dispatch result. */
export interface EntryAttribution {
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

/** What dispatch predicts, with per-entry attribution. */
export interface DispatchOutcome {
  readonly result: ModelResult
  readonly rules: ReadonlyArray<string>
  readonly why: string
  readonly handledWhy: ReadonlyArray<EntryAttribution>
  readonly failedWhy: ReadonlyArray<EntryAttribution>
  readonly parkedWhy: ReadonlyArray<EntryAttribution>
  /** Storage ids selected as due, in dispatch order (before the stale-row skip). */
  readonly selected: ReadonlyArray<string>
  readonly forkedWrites: ReadonlyArray<ForkedWriteOutcome>
  /** Per forked write, the rules that decided its outcome (its own validation error, or the pass check). */
  readonly forkedWhy: ReadonlyArray<EntryAttribution>
  /** The racing external call's outcome, when the operation has a racer (`race.ts`). */
  readonly racer?: RacerOutcome
}

/**
 * Why the options are invalid, judged without the configuration (R20: `limit` a positive safe
 * integer; `retryFailedAfter` finite and > 0, whatever the floor), or null.
 */
export const optionsProblem = (options: ProcessOptions): string | null => {
  const limit = resolveLimit(options.limit)
  if (!limit.ok) return limit.reason
  if (options.retryFailedAfterMs === undefined) return null
  const delay = resolveFailureDelay(options.retryFailedAfterMs, 1)
  return delay.ok ? null : delay.reason
}

const failure = (error: ModelError): ModelResult => ({ _tag: "Failure", error })

/** The error a row that cannot be decoded fails with (R22, R29: upstream's name). */
const DECODE_FAILURE_TAG = "StoredAlarmDecodeError"
/** The error the harness's scripted handler fails with (`outcome: "fail"`). */
const HANDLER_FAILURE_TAG = "ScriptedHandlerFailure"

const scriptFor = (handlers: ReadonlyArray<HandlerScriptEntry>, storageId: string): HandlerScript =>
  handlers.find((entry) => storageIdOf(entry) === storageId)?.script ?? {}

/**
 * Runs the handler's scripted writes in order inside `pass`; the first failing one ends them (the
 * handler then fails with that write's error), with its own rules. Null when every write succeeded.
 */
const runHandlerWrites = (run: StepRun, pass: Pass, script: HandlerScript): (EntryAttribution & { readonly errorTag: string }) | null => {
  for (const write of script.writes ?? []) {
    const label = `handler:${pass.snapshot.storageId}`
    const outcome: ClosureOutcome<unknown> = write.kind === "transaction"
      ? runTransaction(run, label, pass, (draft) => {
        for (const mutation of write.mutations) {
          const applied = applyMutation(run, draft, pass, mutation)
          if (!applied.ok) return applied
        }
        return write.closureFails === true
          ? { ok: false, error: { _tag: "ClosureFailure", reason: "the closure failed" }, rules: ["R4"], why: "closure failed" }
          : { ok: true, value: null }
      })
      : runTransaction(run, label, pass, (draft) => applyMutation(run, draft, pass, write))
    if (!outcome.ok) return { rules: outcome.rules, why: outcome.why, errorTag: outcome.error._tag }
  }
  return null
}

/** The failure action and delay `onFailure` yields (R24); `abort` is re-raised after the reschedule. */
const failureAction = (
  script: OnFailureScript,
  baseDelayMs: number,
  minimumRetryDelayMs: number
): { readonly mode: "retry" | "skip"; readonly delayMs: number; readonly abort: ModelError | null; readonly rules: ReadonlyArray<string> } => {
  switch (script.kind) {
    case "none":
    case "returnsVoid":
    case "returnsNull":
    case "unknownMode":
    case "retry":
      return { mode: "retry", delayMs: baseDelayMs, abort: null, rules: ["R24"] }
    case "skipAndAdvanceRepeat":
      return { mode: "skip", delayMs: baseDelayMs, abort: null, rules: ["R24"] }
    case "fails":
      return { mode: "retry", delayMs: baseDelayMs, abort: { _tag: "OnFailureFailure", reason: "onFailure failed" }, rules: ["R24", "H3"] }
    case "retryAfter": {
      const delay = resolveFailureDelay(script.retryFailedAfterMs, minimumRetryDelayMs)
      return delay.ok
        ? { mode: "retry", delayMs: delay.delayMs, abort: null, rules: ["R24"] }
        : { mode: "retry", delayMs: baseDelayMs, abort: { _tag: "InvalidProcessDueAlarmsOptionsError", reason: delay.reason }, rules: ["R24"] }
    }
  }
}

/** Runs `processDueAlarms` at `run.nowMs`. Throws `CrashSignal` on an injected crash. */
export const processDueAlarms = (
  run: StepRun,
  options: ProcessOptions,
  handlers: ReadonlyArray<HandlerScriptEntry>,
  racer?: DispatchRacer,
  optionsCheckedFirst = false
): DispatchOutcome => {
  const empty = { handledWhy: [], failedWhy: [], parkedWhy: [], selected: [], forkedWrites: [], forkedWhy: [] }
  if (readFailsHere(run)) {
    // Before anything else (a migration check, the select): an implementation may read before validating.
    const stopped = readFailure(["R21"], "before any row was touched")
    return { ...empty, result: failure(stopped.error), rules: stopped.rules, why: stopped.why }
  }
  reachDispatchBoundaries(run, options)
  const resolved = resolveConfiguration(run.state.configuration)
  const problem = optionsProblem(options)
  if (!resolved.ok && optionsCheckedFirst && problem !== null) {
    // R8 puts the configuration first for schedules; no rule orders it against the options of a dispatch.
    reach(run, "invalidOptionsRejected")
    return { ...empty, result: failure({ _tag: "InvalidProcessDueAlarmsOptionsError", reason: problem }), rules: ["R20", "R1"], why: `${problem}; the configuration is invalid too, and this dispatch checked its options first (no rule orders the two)` }
  }
  if (!resolved.ok) {
    reach(run, "invalidConfigurationRejected")
    return { ...empty, result: failure({ _tag: "InvalidScheduleConfigurationError", reason: resolved.reason }), rules: ["R1", "R20"], why: `the configuration is invalid (${resolved.reason}); rejected before any row is touched` }
  }
  const configuration = resolved.configuration
  const limit = resolveLimit(options.limit)
  if (!limit.ok) {
    reach(run, "invalidOptionsRejected")
    return { ...empty, result: failure({ _tag: "InvalidProcessDueAlarmsOptionsError", reason: limit.reason }), rules: ["R20"], why: `${limit.reason}; rejected before any row is touched` }
  }
  const base = resolveFailureDelay(options.retryFailedAfterMs ?? configuration.minimumRetryDelayMs, configuration.minimumRetryDelayMs)
  if (!base.ok) {
    reach(run, "invalidOptionsRejected")
    return { ...empty, result: failure({ _tag: "InvalidProcessDueAlarmsOptionsError", reason: base.reason }), rules: ["R20"], why: `${base.reason}; rejected before any row is touched` }
  }
  if (options.retryFailedAfterMs !== undefined) reach(run, "retryFailedAfterUsed")
  const startRows = run.state.rows
  const allDue = Object.keys(startRows)
    .map((storageId) => readRow(startRows, storageId)!)
    .filter((row) => row.wakeAtMs <= run.nowMs)
    .sort(byWakeThenStorageId)
  const due = allDue.slice(0, limit.limit)
  if (allDue.length > due.length) reach(run, "limitLeftover")
  if (due.length > 1) reach(run, "dispatchedInOrder")
  if (due.some((row) => row.wakeAtMs === run.nowMs)) reach(run, "dueAtExactWake")
  if (due.length > 0 && Object.values(startRows).some((row) => row.runAtMs <= run.nowMs && row.wakeAtMs > run.nowMs)) {
    reach(run, "backingOffRowNotBlocking")
  }
  // An external call racing the batch lands at one of the points below (race.ts).
  const interjection = racer === undefined ? undefined : makeRaceInterjection(run, racer)
  interjection?.at("afterSelectDue")
  const handled: Array<AlarmEvent> = []
  const failed: Array<FailedDispatch> = []
  const parked: Array<ParkedReport> = []
  const handledWhy: Array<EntryAttribution> = []
  const failedWhy: Array<EntryAttribution> = []
  const forked: Array<{ readonly pass: Pass; readonly mutation: Mutation }> = []
  let aborted: { readonly error: ModelError; readonly rules: ReadonlyArray<string>; readonly why: string } | null = null

  for (const snapshot of due) {
    if (readFailsHere(run)) {
      aborted = readFailure(["R22"], `before the re-read of ${snapshot.storageId}`)
      break
    }
    const current = readRow(run.state.rows, snapshot.storageId)
    if (current === undefined || current.revision !== snapshot.revision) {
      reach(run, "staleRowSkipped")
      run.staleSkipped.push(snapshot.storageId)
      continue
    }
    // Revision 0: no attempts row; negative: the attempts row an older layout left (state.ts).
    if (snapshot.revision <= 0) reach(run, "legacyRowFired")
    const script = scriptFor(handlers, snapshot.storageId)
    const pass: Pass = { snapshot, active: true, parked, schedules: 0 }
    const decoded = decodePayload(snapshot.payloadText)
    const event: AlarmEvent | null = decoded.ok
      ? { id: snapshot.alarmId, tag: snapshot.tag, payload: decoded.payload, scheduledAtMs: snapshot.runAtMs }
      : null
    let succeeded = false
    let failureRules: ReadonlyArray<string> = ["R22", "R24"]
    let failureWhy = "the handler failed"
    let causeTag = HANDLER_FAILURE_TAG
    // The rules of the handler's own write when that write decided the failure (e.g. R8, H2).
    let writeRules: ReadonlyArray<string> = []
    if (event !== null) interjection?.at("beforeHandler")
    if (event === null) {
      reach(run, "undecodablePayloadFailed")
      failureRules = ["R22", "R29"]
      failureWhy = "the stored payload could not be decoded, so the failure path runs without an event"
      causeTag = DECODE_FAILURE_TAG
    } else if (run.state.knownTags !== null && !run.state.knownTags.includes(snapshot.tag)) {
      reach(run, "unknownStoredTagFailed")
      failureRules = ["R29"]
      failureWhy = "the stored tag has no typed definition, which is a handler failure"
      causeTag = DECODE_FAILURE_TAG
    } else if (run.state.knownTags !== null && run.state.numberTags.includes(snapshot.tag) && typeof event.payload !== "number") {
      reach(run, "narrowedPayloadFailed")
      failureRules = ["R29"]
      failureWhy = "the stored payload does not decode with its tag's schema (numbers only), which is a handler failure"
      causeTag = DECODE_FAILURE_TAG
    } else {
      run.handlerCalls.push(snapshot.storageId)
      const writeFailure = runHandlerWrites(run, pass, script)
      if (script.forkedWrite !== undefined) forked.push({ pass, mutation: script.forkedWrite })
      succeeded = writeFailure === null && (script.outcome ?? "succeed") === "succeed"
      if (writeFailure !== null) {
        // The write's own rule decided the failure (e.g. R8 for a repeat below the floor).
        writeRules = writeFailure.rules
        failureRules = [...writeFailure.rules, "R22", "R24"]
        failureWhy = `a write of the handler failed (${writeFailure.why}), so the handler failed`
        causeTag = writeFailure.errorTag
      }
    }
    pass.active = false
    if (event !== null) interjection?.at("afterHandler")
    if (readFailsHere(run)) {
      aborted = readFailure(["R22"], `after the pass of ${snapshot.storageId}, before its row's transaction`)
      break
    }
    const label = snapshot.storageId
    if (succeeded && event !== null) {
      const ack = runTransaction(run, `acknowledge:${label}`, null, (draft) => ({ ok: true, value: acknowledge(run, draft, snapshot, configuration) }))
      if (!ack.ok) {
        aborted = { error: ack.error, rules: ack.rules, why: ack.why }
        break
      }
      interjection?.at("afterAcknowledge")
      handled.push(event)
      handledWhy.push(
        ack.value === "noOp"
          ? { rules: ["R22", "R23", "E6", "H1"], why: "handled; the handler wrote its own row, so the acknowledgement was a no-op" }
          : ack.value === "deleted"
          ? { rules: ["R22", "R23"], why: "handled; the one-shot row was deleted" }
          : { rules: ["R22", "R23"], why: "handled; the repeat advanced to now + interval with a fresh budget" }
      )
      continue
    }
    failed.push({ tag: snapshot.tag, id: snapshot.alarmId, event, causeTag })
    failedWhy.push({ rules: failureRules, why: failureWhy })
    // No callback passed: the default action `retry` with the base delay (R24).
    if (options.withoutOnFailure === true) reach(run, "defaultFailureActionRetried")
    const action = failureAction(options.withoutOnFailure === true ? { kind: "none" } : script.onFailure ?? { kind: "none" }, base.delayMs, configuration.minimumRetryDelayMs)
    const failurePass: Pass = { snapshot, active: true, parked, schedules: 0 }
    interjection?.at("beforeFailureWrite")
    // With a racer, the park reports wait until the racer had its chance between commit and report (R27).
    let deferredReports: ReadonlyArray<string> = []
    const handledFailure = runTransaction(run, `failure:${label}`, failurePass, (draft) => {
      if (action.mode === "skip") {
        const effect = acknowledge(run, draft, snapshot, configuration)
        reach(run, snapshot.repeatEveryMs === null ? "skipAndAdvanceOneShotDeleted" : "skipAndAdvanceRepeat")
        return { ok: true, value: effect }
      }
      const value = rescheduleFailed(run, draft, snapshot, action.delayMs, configuration)
      if (interjection !== undefined) deferredReports = draft.reports.splice(0)
      return { ok: true, value }
    })
    if (interjection !== undefined && handledFailure.ok) {
      interjection.at("afterFailureCommit")
      if (!reportParked(run, deferredReports, failurePass)) {
        aborted = readFailure(["R27"], "after the failure write committed, before a park report's re-read")
        break
      }
    }
    if (!handledFailure.ok) {
      aborted = { error: handledFailure.error, rules: handledFailure.rules, why: handledFailure.why }
      break
    }
    if (action.abort !== null) {
      if (action.abort._tag === "OnFailureFailure") reach(run, "onFailureFailed")
      else reach(run, "invalidActionDelayFellBack")
      aborted = {
        error: action.abort,
        // The abort follows from the failure: when the handler's own write decided it, that write's
        // rules come first (an implementation accepting the write never reaches onFailure at all).
        rules: [...writeRules, ...action.rules],
        why: action.abort._tag === "OnFailureFailure"
          ? "onFailure failed: the row was still rescheduled with the base delay, then the error aborted the batch"
          : "the action's retryFailedAfter is invalid: the row was rescheduled with the base delay, then the call failed"
      }
      break
    }
  }

  let result: ModelResult
  let rules: ReadonlyArray<string>
  let why: string
  if (aborted === null && readFailsHere(run)) aborted = readFailure(["R26"], "after the batch, before the final reconcile")
  if (aborted === null) {
    const final = runTransaction(run, "reconcile", null, () => ({ ok: true, value: null }))
    if (final.ok) {
      const value: DispatchResult = { handled, failed, parked }
      result = { _tag: "Success", value }
      rules = ["R21", "R22", "R26"]
      why = `dispatched ${handled.length + failed.length} of ${due.length} selected due rows (limit ${limit.limit})`
    } else {
      result = failure(final.error)
      rules = final.rules
      why = final.why
    }
  } else {
    result = failure(aborted.error)
    rules = aborted.rules
    why = aborted.why
  }

  const forkedWrites: Array<ForkedWriteOutcome> = []
  const forkedWhy: Array<EntryAttribution> = []
  for (const { pass, mutation } of forked) {
    const outcome = runTransaction(run, `forked:${mutationTarget(mutation)}`, pass, (draft) => applyMutation(run, draft, pass, mutation))
    if (outcome.ok && mutation.kind === "cancelAlarm") reach(run, "forkedCancelAfterPass")
    const error = outcome.ok ? null : outcome.error
    forkedWrites.push({ ok: outcome.ok, error, saysPassEnded: error?._tag === "StorageOperationError" && error.reason === "detachedWork" })
    forkedWhy.push(
      outcome.ok
        ? { rules: ["R9", "H4"], why: "a cancel from a fiber forked by a handler is not pass-checked upstream (0.52)" }
        : { rules: outcome.rules, why: outcome.why }
    )
  }
  const racerOutcome = interjection?.finish()
  return {
    ...(racerOutcome === undefined ? {} : { racer: racerOutcome }),
    result,
    rules,
    why,
    handledWhy,
    failedWhy,
    parkedWhy: parked.map((report) => run.reportWhy.get(report) ?? { rules: ["R27", "R18", "E8"], why: "newly parked in this call; reported once after commit" }),
    selected: due.map((row: RowView) => row.storageId),
    forkedWrites,
    forkedWhy
  }
}
