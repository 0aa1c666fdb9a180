/**
 * The cancel mutation (R19): deletes both rows, forgetting budget, parking and the progress cursor.
 */
import type { ClosureOutcome, StepRun, TransactionDraft } from "./run.ts"
import { failWith, reach } from "./run.ts"
import { readRow } from "./state.ts"
import { type AlarmRef, storageIdOf } from "./storageId.ts"
import { typedDefinitionProblem } from "./typed.ts"
import { refProblem } from "./validation.ts"

/** Applies one cancel to the draft. Cancel reads no configuration and has no pass check (upstream 0.52). */
export const applyCancel = (run: StepRun, draft: TransactionDraft, ref: AlarmRef): ClosureOutcome<null> => {
  const typed = typedDefinitionProblem(run, { kind: "cancelAlarm", ref })
  if (typed !== null) return typed
  const refIssue = refProblem(ref)
  if (refIssue !== null) {
    reach(run, "invalidRefRejected")
    return failWith({ _tag: "InvalidAlarmRefError", reason: refIssue }, ["R8"], `the ref is invalid: ${refIssue}`)
  }
  const storageId = storageIdOf(ref)
  const existing = readRow(draft.rows, storageId)
  if (existing !== undefined) {
    if (existing.progress >= 0 || existing.attempts > 0) reach(run, "cancelForgetsState")
    const { [storageId]: _removed, ...rest } = draft.rows
    draft.rows = rest
    draft.forgotten[storageId] = { rules: ["R19", "E2"], why: "cancelled: budget, parking and cursor forgotten" }
  }
  return { ok: true, value: null }
}
