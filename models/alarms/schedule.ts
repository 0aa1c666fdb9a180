/**
 * The schedule mutation (R8-R18): validate, apply the replay drop, compute the attempt state, write.
 * Shared by `scheduleAlarm` (earlier = false) and `scheduleAlarmEarlier` (earlier = true).
 */
import { resolveConfiguration, retryDelayMs } from "./configuration.ts"
import type { ScheduleInput } from "./operations.ts"
import { type ClosureOutcome, failWith, type Pass, reach, type StepRun, type TransactionDraft } from "./run.ts"
import { readRow } from "./state.ts"
import { storageIdOf } from "./storageId.ts"
import { reachScheduleBoundaries } from "./boundaries.ts"
import { typedDefinitionProblem } from "./typed.ts"
import { isUnencodablePayload, isValidProgress, isValidRunAt, refProblem, resolveRepeatEvery } from "./validation.ts"

/** The words for a cursor that did not move forward, or nothing when the schedule had no cursor. */
const notForward = (inputProgress: number | undefined, storedProgress: number): string =>
  inputProgress === undefined ? "" : ` (cursor ${inputProgress} is not greater than the stored ${storedProgress}, so no progress)`

/** What a successful schedule did: wrote the rows, or dropped a replayed external notice (R11). */
export type ScheduleEffect = "written" | "dropped"

/** Applies one schedule to the draft of the surrounding transaction. */
export const applySchedule = (
  run: StepRun,
  draft: TransactionDraft,
  pass: Pass | null,
  input: ScheduleInput,
  earlier: boolean
): ClosureOutcome<ScheduleEffect> => {
  // The typed wrapper checks the tag and encodes the payload before the untyped call validates anything.
  const typed = typedDefinitionProblem(run, { kind: earlier ? "scheduleAlarmEarlier" : "scheduleAlarm", input })
  reachScheduleBoundaries(run, input, run.state.knownTags !== null && !run.state.knownTags.includes(input.tag))
  if (typed !== null) return typed
  const resolved = resolveConfiguration(run.state.configuration)
  if (!resolved.ok) {
    reach(run, "invalidConfigurationRejected")
    // R8's order decides only when another input of the call is invalid too; alone, R1 decides.
    const alsoInvalid = refProblem(input) !== null || isUnencodablePayload(input.payload) || !isValidRunAt(input.runAtMs)
    return failWith({ _tag: "InvalidScheduleConfigurationError", reason: resolved.reason }, alsoInvalid ? ["R1", "R8"] : ["R1"], `the configuration is invalid (${resolved.reason}); validated first, nothing commits`)
  }
  const configuration = resolved.configuration
  const refIssue = refProblem(input)
  if (refIssue !== null) {
    reach(run, "invalidRefRejected")
    return failWith({ _tag: "InvalidAlarmRefError", reason: refIssue }, ["R8"], `the ref is invalid: ${refIssue}`)
  }
  const repeat = resolveRepeatEvery(input.repeatEveryMs, configuration.minimumRepeatIntervalMs)
  if (!repeat.ok) {
    reach(run, "invalidRepeatRejected")
    return failWith({ _tag: "InvalidRepeatEveryError", reason: repeat.reason }, ["R8", "H2"], repeat.reason)
  }
  if (isUnencodablePayload(input.payload)) {
    reach(run, "invalidPayloadRejected")
    return failWith({ _tag: "InvalidAlarmPayloadError", reason: "payload is not JSON-encodable" }, ["R8"], "the payload cannot be encoded as JSON")
  }
  if (!isValidRunAt(input.runAtMs)) {
    reach(run, "invalidRefRejected")
    return failWith({ _tag: "InvalidAlarmRefError", reason: "runAt must be a whole epoch millisecond" }, ["R8"], "runAt is not a whole epoch millisecond")
  }
  const storageId = storageIdOf(input)
  const existing = readRow(draft.rows, storageId)
  const source = pass?.snapshot
  const progress = existing !== undefined ? existing.progress : source?.progress ?? -1
  if (pass !== null && !pass.active) {
    reach(run, "detachedWriteRejected")
    return failWith(
      { _tag: "StorageOperationError", reason: "detachedWork" },
      ["R9", "H4"],
      "the handler's pass had ended: alarm handlers cannot schedule detached work after their pass ends"
    )
  }
  if (input.progress !== undefined && !isValidProgress(input.progress)) {
    reach(run, "invalidProgressRejected")
    return failWith({ _tag: "InvalidAlarmRefError", reason: "progress must be a non-negative integer" }, ["R10"], "progress must be a non-negative integer (upstream raises InvalidAlarmRefError)")
  }
  if (source === undefined && input.progress !== undefined && input.progress <= progress) {
    reach(run, "replayDrop")
    return { ok: true, value: "dropped" }
  }
  const budget = configuration.unchangedAttemptBudget
  const progressed = input.progress !== undefined && input.progress > progress
  const sourceProgressed = source !== undefined && storageId === source.storageId && progress > source.progress
  if (source !== undefined && storageId === source.storageId && existing === undefined) reach(run, "ownRowCancelledThenRescheduled")
  let attempts: number
  let rules: Array<string>
  let why: string
  if (source === undefined) {
    attempts = 0
    if (progressed && existing !== undefined && existing.progress >= 0) {
      reach(run, "budgetResetByGreaterCursor")
      rules = ["R12", "R13"]
      why = `an external call with cursor ${input.progress} > stored ${progress} resets the budget`
    } else {
      reach(run, "externalEnrollmentReset")
      rules = ["R13"]
      why = "an external enrollment is progress: fresh budget, not parked"
    }
  } else if (progressed || sourceProgressed) {
    attempts = 0
    reach(run, progressed ? "budgetResetByGreaterCursor" : "sourceProgressedReset")
    rules = ["R12", "R13"]
    why = progressed
      ? `a schedule in a pass with cursor ${input.progress} > ${progress} resets the budget`
      : "the pass's own row already moved past the pass's cursor snapshot, so this is progress"
  } else if (source.parked || existing?.parked === true) {
    attempts = Math.max(source.attempts, existing?.attempts ?? 0)
    reach(run, "parkedStaysParked")
    if (attempts < budget) reach(run, "parkedUnderRaisedBudget")
    // With a cursor, the comparison that found no progress (R12) decides as much as the charge rule.
    rules = input.progress === undefined ? ["R13", "R14"] : ["R13", "R14", "R12"]
    why = `a self-rearm of parked work keeps attempts ${attempts} and stays parked (no further charge)${notForward(input.progress, progress)}`
  } else {
    attempts = Math.min(budget, Math.max(source.attempts + 1, existing?.attempts ?? 0))
    reach(run, "selfRearmCharged")
    if (pass !== null && pass.schedules > 0) reach(run, "chargedOncePerPass")
    if (existing === undefined) reach(run, "newIdInheritsSourceAttempts")
    if (input.progress !== undefined) reach(run, "nonForwardCursorInPassCharged")
    // With a cursor, the comparison that found no progress (R12; in a pass it is not a replay drop, E1,
    // R11) decides as much as the charge rule.
    rules = input.progress === undefined ? ["R13"] : ["R13", "R12", "E1", "R11"]
    why = `a self-rearm in a pass charges once: min(budget ${budget}, max(source ${source.attempts} + 1, existing ${existing?.attempts ?? 0})) = ${attempts}${notForward(input.progress, progress)}`
  }
  if (pass !== null) pass.schedules += 1
  const parked = attempts > 0 && (attempts >= budget || source?.parked === true || existing?.parked === true)
  const retryAtMs = attempts === 0 ? null : run.nowMs + retryDelayMs(attempts, parked, configuration)
  const keepEarlier = earlier && existing !== undefined && existing.runAtMs <= input.runAtMs
  if (earlier && existing !== undefined) {
    reach(run, keepEarlier ? "earlierMinMergeKeptExisting" : "earlierMinMergeMovedEarlier")
    // R16's boundary on its own: the requested deadline equals the stored one (`<=` keeps the stored row).
    if (existing.runAtMs === input.runAtMs) reach(run, "earlierMinMergeTie")
  }
  const runAtMs = keepEarlier ? existing.runAtMs : input.runAtMs
  const wakeAtMs = Math.max(runAtMs, retryAtMs ?? runAtMs)
  if (retryAtMs !== null && wakeAtMs === runAtMs && runAtMs > retryAtMs) reach(run, "farFutureSelfRearm")
  const revision = draft.nextRevision
  draft.nextRevision += 1
  draft.rows[storageId] = {
    storageId,
    alarmId: input.id,
    tag: input.tag,
    runAtMs,
    wakeAtMs,
    repeatEveryMs: keepEarlier ? existing.repeatEveryMs : repeat.repeatEveryMs,
    payloadText: keepEarlier ? existing.payloadText : JSON.stringify(input.payload),
    attemptsRow: { revision, attempts, parked, retryAtMs, progress: Math.max(progress, input.progress ?? -1) },
    decidedBy: {
      rules: [...rules, ...(parked ? ["R14"] : []), "R15", ...(keepEarlier ? ["R16"] : []), "R17"],
      why: `${why}${parked ? "; parked" : ""}; retry_at ${retryAtMs ?? "null"}${keepEarlier ? "; min-merge kept the earlier run_at, payload and repeat" : ""}`
    }
  }
  delete draft.forgotten[storageId]
  const wasParked = existing !== undefined ? existing.parked : source?.parked ?? false
  if (parked && retryAtMs !== null && !wasParked) {
    reach(run, "newParkedEpisode")
    draft.reports.push(storageId)
  }
  return { ok: true, value: "written" }
}
