/**
 * `step(state, operation)`: the model's transition function. Pure: the input state is never mutated.
 */
import type { Json } from "../../harness/Property.ts"
import { processDueAlarms } from "./dispatch.ts"
import { applyMutation } from "./mutation.ts"
import type { Operation, TransactionFault, TransactionMutation } from "./operations.ts"
import type { AlarmStatus, ForkedWriteOutcome, ModelResult, MutationResult } from "./results.ts"
import { MAX_ALTERNATIVES } from "../../harness/Alternatives.ts"
import { toJson } from "../../harness/ToJson.ts"
import { type ClosureOutcome, CrashSignal, reach, readFailsHere, readFailure, runTransaction, startRun, type StepRun, type TransactionRecord } from "./run.ts"
import type { Situation } from "./situations.ts"
import { type ModelState, type ReporterCall, byWakeThenStorageId } from "./state.ts"
import { statusOf } from "./status.ts"
import { storageIdOf } from "./storageId.ts"
import { typedDefinitionProblem } from "./typed.ts"
import { reachScheduleBoundaries } from "./boundaries.ts"
import { refProblem } from "./validation.ts"

/** One predicted observable with the rules that decided it and one plain sentence. */
export interface Prediction {
  /** `result`, `platformAlarm`, `reporterCalls`, `handled`, `handled[0]`, `failed[1]`, `parked`, `forkedWrite[0]`, ... */
  readonly observable: string
  readonly expected: Json
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

/** Everything one step predicts. */
export interface StepOutcome {
  readonly state: ModelState
  readonly result: ModelResult
  /** Rules that decided `result`, most specific first (e.g. `["R11"]` for a replay drop). */
  readonly rules: ReadonlyArray<string>
  /** One plain sentence explaining `result`. */
  readonly why: string
  /** Requirement-relevant situations this step reached (see `SITUATION_RULES`). */
  readonly situations: ReadonlyArray<Situation>
  /** Every observable of this step, each with its attribution (includes `result`). */
  readonly predictions: ReadonlyArray<Prediction>
  /** Storage transactions the step ran, in order (what `TransactionFault.transaction` counts). */
  readonly transactions: ReadonlyArray<TransactionRecord>
  /** Reporter calls made during this step, in order. */
  readonly reporterCalls: ReadonlyArray<ReporterCall>
  /** Outcomes of writes attempted by handler-forked fibers after `processDueAlarms` returned. */
  readonly forkedWrites: ReadonlyArray<ForkedWriteOutcome>
  /** Per storage id: the status an acknowledgement ignoring the handler's own write would have left (H1). */
  readonly ackIgnoringWrite: Readonly<Record<string, AlarmStatus | null>>
  /** Storage ids `processDueAlarms` handed to the handler, in call order. */
  readonly handlerCalls: ReadonlyArray<string>
  /** Storage ids `processDueAlarms` selected but skipped as gone or changed earlier in the batch (R22). */
  readonly staleSkipped: ReadonlyArray<string>
  /** The operation's fault is void: the harness must run the operation without it (`run.ts`). */
  readonly faultVoided: boolean
  /** Why, when not the harness's words for a statement fault (`VOIDED_FAULT_WORDS`). */
  readonly faultVoidedWhy: string | undefined
  /**
   * Read points the step passed (`run.ts`, `readFailsHere`): where a `readFails` fault that struck may
   * have struck, each an alternative the property weighs (1 to `readPoints`).
   */
  readonly readPoints: number
}


interface Decided {
  readonly result: ModelResult
  readonly rules: ReadonlyArray<string>
  readonly why: string
  readonly extra: ReadonlyArray<Prediction>
  readonly forkedWrites: ReadonlyArray<ForkedWriteOutcome>
}

const decided = (result: ModelResult, rules: ReadonlyArray<string>, why: string, extra: ReadonlyArray<Prediction> = []): Decided => ({
  result,
  rules,
  why,
  extra,
  forkedWrites: []
})

const fromClosure = (outcome: ClosureOutcome<unknown>, successRules: ReadonlyArray<string>, successWhy: string, value: unknown = null): Decided =>
  outcome.ok
    ? decided({ _tag: "Success", value }, successRules, successWhy)
    : decided({ _tag: "Failure", error: outcome.error }, outcome.rules, outcome.why)

const externalMutation = (run: StepRun, operation: Extract<Operation, { kind: "scheduleAlarm" | "scheduleAlarmEarlier" | "cancelAlarm" }>): Decided => {
  const mutation = operation.kind === "cancelAlarm"
    ? { kind: operation.kind, ref: operation.ref }
    : { kind: operation.kind, input: operation.input }
  // The typed wrapper checks the tag and encodes the payload before it calls the handle, so a typed
  // rejection opens no transaction: a fault planned for transaction 1 never happens.
  const typed = typedDefinitionProblem(run, mutation)
  if (typed !== null) {
    if ("input" in mutation) reachScheduleBoundaries(run, mutation.input, true)
    return fromClosure(typed, [], "")
  }
  const outcome = runTransaction(run, operation.kind, null, (draft) => applyMutation(run, draft, null, mutation))
  if (!outcome.ok) return fromClosure(outcome, [], "")
  if (outcome.value === "dropped") {
    return decided({ _tag: "Success", value: null }, ["R11"], "an external call whose cursor is <= the stored cursor writes nothing (replay drop)")
  }
  if (operation.kind === "cancelAlarm") {
    return decided({ _tag: "Success", value: null }, ["R19", "R7"], "cancel deletes both rows")
  }
  const row = run.state.rows[storageIdOf(operation.input)]
  return decided({ _tag: "Success", value: null }, [...(row?.decidedBy.rules ?? []), "R7"], row?.decidedBy.why ?? "written")
}

const transactionOperation = (run: StepRun, operation: Extract<Operation, { kind: "transaction" }>): Decided => {
  const results: Array<MutationResult> = []
  const outcome = runTransaction(run, "transaction", null, (draft) => {
    for (const mutation of operation.mutations) {
      if (mutation.misuse !== undefined) {
        // A typed handle checks its definitions before it calls the (rejecting) untyped handle.
        const typed = typedDefinitionProblem(run, stripMisuse(mutation))
        if (typed !== null) {
          results.push({ _tag: "Failure", error: typed.error })
          continue
        }
        reach(run, "inactiveHandleRejected")
        results.push({ _tag: "Failure", error: { _tag: "StorageOperationError", reason: "inactiveHandle" } })
        continue
      }
      const applied = applyMutation(run, draft, null, stripMisuse(mutation))
      if (!applied.ok) return applied
      results.push({ _tag: "Success" })
    }
    if (operation.closureFails === true) {
      reach(run, "closureFailureRolledBack")
      return {
        ok: false,
        error: { _tag: "ClosureFailure", reason: "the closure failed" },
        rules: ["R4"],
        why: "the closure failed, so nothing it wrote commits"
      }
    }
    return { ok: true, value: null }
  })
  return fromClosure(outcome, ["R4", "R6"], `committed ${operation.mutations.length} mutations atomically`, { mutations: results })
}

const stripMisuse = (mutation: TransactionMutation) => {
  const { misuse: _misuse, ...rest } = mutation
  return rest
}

const getStatus = (run: StepRun, operation: Extract<Operation, { kind: "getAlarmStatus" }>): Decided => {
  if (readFailsHere(run)) {
    // Anywhere in the call (a migration check, the row read): nothing else happens.
    const stopped = readFailure(["R28"], "while reading the status")
    return decided({ _tag: "Failure", error: stopped.error }, stopped.rules, stopped.why)
  }
  const refIssue = refProblem(operation.ref)
  if (refIssue !== null) {
    reach(run, "invalidRefRejected")
    return decided({ _tag: "Failure", error: { _tag: "InvalidAlarmRefError", reason: refIssue } }, ["R8", "R28"], `the ref is invalid: ${refIssue}`)
  }
  const storageId = storageIdOf(operation.ref)
  const row = run.state.rows[storageId]
  const provenance = row?.decidedBy ?? run.state.forgotten[storageId]
  return decided(
    { _tag: "Success", value: statusOf(run.state, storageId) },
    ["R28", ...(provenance?.rules ?? [])],
    provenance?.why ?? "no such alarm"
  )
}

const dispatch = (run: StepRun, operation: Extract<Operation, { kind: "processDueAlarms" }>): Decided => {
  const outcome = processDueAlarms(run, operation.options ?? {}, operation.handlers ?? [], operation.racer, operation.optionsCheckedFirst === true)
  const extra: Array<Prediction> = []
  if (outcome.racer !== undefined) {
    extra.push({ observable: "racer", expected: toJson({ result: outcome.racer.result, ranAt: outcome.racer.ranAt }), rules: outcome.racer.rules, why: outcome.racer.why })
  }
  if (outcome.result._tag === "Success") {
    const value = outcome.result.value as { handled: ReadonlyArray<unknown>; failed: ReadonlyArray<unknown>; parked: ReadonlyArray<unknown> }
    extra.push({ observable: "handled", expected: toJson(value.handled), rules: ["R21", "R22", "E5", "E6"], why: `dispatch order is (wake_at, storage_id): ${outcome.selected.join(", ") || "nothing due"}` })
    extra.push({ observable: "failed", expected: toJson(value.failed), rules: ["R21", "R24"], why: "failures in dispatch order" })
    extra.push({ observable: "parked", expected: toJson(value.parked), rules: ["R27", "R18"], why: "reports of alarms newly parked during this call, after each commit" })
    value.handled.forEach((entry, index) => extra.push({ observable: `handled[${index}]`, expected: toJson(entry), ...outcome.handledWhy[index]! }))
    value.failed.forEach((entry, index) => extra.push({ observable: `failed[${index}]`, expected: toJson(entry), ...outcome.failedWhy[index]! }))
    value.parked.forEach((entry, index) => extra.push({ observable: `parked[${index}]`, expected: toJson(entry), ...outcome.parkedWhy[index]! }))
  }
  outcome.forkedWrites.forEach((entry, index) =>
    extra.push({ observable: `forkedWrite[${index}]`, expected: toJson(entry), ...outcome.forkedWhy[index]! })
  )
  return { result: outcome.result, rules: outcome.rules, why: outcome.why, extra, forkedWrites: outcome.forkedWrites }
}

const platformAlarmPrediction = (state: ModelState): Prediction => {
  const rows = Object.values(state.rows).sort(byWakeThenStorageId)
  const first = rows[0]
  return {
    observable: "platformAlarm",
    expected: state.platformAlarmMs,
    rules: ["R6", "H6"],
    why: first === undefined
      ? "no rows remain, so the platform alarm is absent"
      : `the smallest effective wake is ${first.wakeAtMs} (${first.storageId})`
  }
}

/**
 * Applies `operation` to `state` and predicts every observable.
 *
 * @example
 * const s0 = init()
 * const { state, result } = step(s0, { kind: "scheduleAlarm", nowMs: 0, input: { tag: "t", id: "a", payload: 1, runAtMs: 10 } })
 * // result = { _tag: "Success", value: null }; state.platformAlarmMs === 10
 */
export const step = (state: ModelState, operation: Operation): StepOutcome => {
  const nowMs = "nowMs" in operation ? operation.nowMs : 0
  const fault = "fault" in operation ? operation.fault : undefined
  const reporterFails = "reporterFails" in operation && operation.reporterFails === true
  const run = startRun(state, nowMs, fault, reporterFails)
  let outcome: Decided
  try {
    switch (operation.kind) {
      case "scheduleAlarm":
      case "scheduleAlarmEarlier":
      case "cancelAlarm":
        outcome = externalMutation(run, operation)
        break
      case "transaction":
        outcome = transactionOperation(run, operation)
        break
      case "getAlarmStatus":
        outcome = getStatus(run, operation)
        break
      case "processDueAlarms":
        outcome = dispatch(run, operation)
        break
      case "configure":
        run.state = { ...run.state, configuration: { ...run.state.configuration, ambient: operation.configuration } }
        outcome = decided({ _tag: "Success", value: null }, ["R1"], "the ambient configuration reference changed; captured defaults stay")
        break
      case "rebuildService":
        run.state = {
          ...run.state,
          configuration: { captured: run.state.configuration.ambient, ambient: run.state.configuration.ambient },
          ...(operation.knownTags === undefined ? {} : {
            knownTags: operation.knownTags === null ? null : [...operation.knownTags],
            numberTags: operation.knownTags === null ? [] : (operation.numberTags ?? []).filter((tag) => operation.knownTags!.includes(tag))
          })
        }
        reach(run, "serviceRebuilt")
        outcome = decided({ _tag: "Success", value: null }, ["R1"], "the service was rebuilt: defaults recaptured, storage unchanged")
        break
    }
  } catch (error) {
    if (!(error instanceof CrashSignal)) throw error
    run.state = { ...run.state, configuration: { captured: run.state.configuration.ambient, ambient: run.state.configuration.ambient } }
    outcome = decided(
      { _tag: "Crashed", transaction: error.transaction, phase: error.phase },
      error.phase === "inside" ? ["R4", "R6"] : ["R4", "R27"],
      error.phase === "inside"
        ? `crash inside transaction ${error.transaction}: it did not commit and the platform alarm kept its last committed value`
        : `crash after transaction ${error.transaction} committed: its state stays, its park reports are lost (never duplicated later)`
    )
  }
  const finalState: ModelState = { ...run.state, reporterLog: [...run.state.reporterLog, ...run.reporterCalls] }
  const predictions: Array<Prediction> = [
    { observable: "result", expected: toJson(outcome.result), rules: outcome.rules, why: outcome.why },
    platformAlarmPrediction(finalState),
    {
      observable: "reporterCalls",
      expected: toJson(run.reporterCalls.map(({ attempts, retryAtMs }) => ({ attempts, retryAtMs }))),
      rules: ["R27", "R18", "E8", "E9"],
      why: run.reporterCalls.length === 0
        ? "no alarm entered a new parked episode that was still parked at commit"
        : "one content-free report per newly parked alarm, after commit"
    },
    ...outcome.extra
  ]
  return {
    state: finalState,
    result: outcome.result,
    rules: outcome.rules,
    why: outcome.why,
    situations: [...run.situations],
    predictions,
    transactions: run.transactions,
    reporterCalls: run.reporterCalls,
    forkedWrites: outcome.forkedWrites,
    ackIgnoringWrite: Object.fromEntries(run.ackIgnoringWrite),
    handlerCalls: [...run.handlerCalls],
    staleSkipped: [...run.staleSkipped],
    ...voidedUnlessJudgeable(run, fault),
    readPoints: run.readPoints
  }
}

/**
 * The run's own voiding, and a `readFails` fault's when the step passes more read points than the
 * property can weigh as alternatives (`MAX_ALTERNATIVES`): the harness then does not inject it.
 */
const voidedUnlessJudgeable = (run: StepRun, fault: TransactionFault | undefined) =>
  fault?.phase === "readFails" && fault.readPoint === undefined && run.readPoints > MAX_ALTERNATIVES
    ? { faultVoided: true, faultVoidedWhy: `not injected: this call passes ${run.readPoints} places where a read outside a transaction may fail, more than the ${MAX_ALTERNATIVES} alternatives a step weighs` }
    : { faultVoided: run.faultVoided, faultVoidedWhy: run.faultVoidedWhy }

