/**
 * Acknowledgement after a handled event or `skip-and-advance-repeat` (R23): conditional on the
 * revision read at pass start, so any write by the handler to its own row survives (H1).
 */
import type { ResolvedScheduleConfiguration } from "./configuration.ts"
import { reach, type StepRun, type TransactionDraft } from "./run.ts"
import { readRow, type RowView } from "./state.ts"

/** What the acknowledgement did. */
export type AcknowledgeEffect = "deleted" | "advanced" | "noOp"

/**
 * One-shot: delete both rows if the revision still matches. Repeat: `run_at = now + max(floor, every)`,
 * attempts reset with a fresh revision (a completed repeat is progress; no catch-up). Otherwise no-op.
 */
export const acknowledge = (
  run: StepRun,
  draft: TransactionDraft,
  snapshot: RowView,
  configuration: ResolvedScheduleConfiguration
): AcknowledgeEffect => {
  const current = readRow(draft.rows, snapshot.storageId)
  const intervalMs = snapshot.repeatEveryMs === null ? null : Math.max(configuration.minimumRepeatIntervalMs, snapshot.repeatEveryMs)
  if (current === undefined || current.revision !== snapshot.revision) {
    reach(run, "acknowledgementNoOp")
    if (current !== undefined) {
      run.ackIgnoringWrite.set(
        snapshot.storageId,
        intervalMs === null ? null : { attempts: 0, parked: false, runAtMs: run.nowMs + intervalMs, retryAtMs: null }
      )
    }
    return "noOp"
  }
  if (intervalMs === null) {
    const { [snapshot.storageId]: _removed, ...rest } = draft.rows
    draft.rows = rest
    draft.forgotten[snapshot.storageId] = { rules: ["R23", "E2"], why: "one-shot acknowledged: row deleted, cursor forgotten" }
    reach(run, "oneShotAcknowledged")
    return "deleted"
  }
  const runAtMs = run.nowMs + intervalMs
  if (run.nowMs - snapshot.runAtMs >= intervalMs) reach(run, "repeatNoCatchUp")
  const previous = draft.rows[snapshot.storageId]!
  const revision = draft.nextRevision
  draft.nextRevision += 1
  draft.rows[snapshot.storageId] = {
    ...previous,
    runAtMs,
    wakeAtMs: runAtMs,
    attemptsRow: { revision, attempts: 0, parked: false, retryAtMs: null, progress: snapshot.progress },
    decidedBy: {
      rules: ["R23"],
      why: `repeat acknowledged at ${run.nowMs}: next run_at = now + max(${configuration.minimumRepeatIntervalMs}, ${snapshot.repeatEveryMs}); attempts reset`
    }
  }
  reach(run, "repeatAcknowledged")
  return "advanced"
}
