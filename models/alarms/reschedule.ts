/**
 * Reschedule after a failed event (R25): charge one attempt unless parked, back off from the failure
 * base delay, keep `run_at` (stable `scheduledAt`, H2), and skip when the row changed this pass.
 */
import { type ResolvedScheduleConfiguration, retryDelayMs } from "./configuration.ts"
import { reach, type StepRun, type TransactionDraft } from "./run.ts"
import { readRow, type RowView } from "./state.ts"

/** What the reschedule did. */
export type RescheduleEffect = "rescheduled" | "parked" | "skipped"

/** Applies the failure reschedule for `snapshot` (the row as read at batch start). */
export const rescheduleFailed = (
  run: StepRun,
  draft: TransactionDraft,
  snapshot: RowView,
  baseDelayMs: number,
  configuration: ResolvedScheduleConfiguration
): RescheduleEffect => {
  const current = readRow(draft.rows, snapshot.storageId)
  if (current === undefined || current.revision !== snapshot.revision) {
    reach(run, "failureRescheduleSkipped")
    return "skipped"
  }
  const budget = configuration.unchangedAttemptBudget
  const attempts = snapshot.parked ? snapshot.attempts : Math.min(budget, snapshot.attempts + 1)
  const parked = snapshot.parked || attempts >= budget
  const retryAtMs = run.nowMs + retryDelayMs(attempts, parked, configuration, baseDelayMs)
  if (!parked && baseDelayMs * 2 ** (attempts - 1) >= configuration.parkedRetryDelayMs) reach(run, "retryDelayCapped")
  const previous = draft.rows[snapshot.storageId]!
  const revision = draft.nextRevision
  draft.nextRevision += 1
  draft.rows[snapshot.storageId] = {
    ...previous,
    wakeAtMs: Math.max(previous.runAtMs, retryAtMs),
    attemptsRow: { revision, attempts, parked, retryAtMs, progress: snapshot.progress },
    decidedBy: {
      rules: ["R25", "R2", ...(parked ? ["R14"] : [])],
      why: snapshot.parked
        ? `failed while parked: attempts stay ${attempts}, retry after the parked delay`
        : `failure ${attempts} of budget ${budget}: retry_at = now + ${retryAtMs - run.nowMs} ms${parked ? ", parked" : ""}`
    }
  }
  if (parked) {
    reach(run, "failureParked")
    if (snapshot.parked && attempts < budget) reach(run, "parkedUnderRaisedBudget")
    if (!snapshot.parked) {
      reach(run, "newParkedEpisode")
      draft.reports.push(snapshot.storageId)
    }
    return "parked"
  }
  reach(run, "failureRescheduled")
  return "rescheduled"
}
