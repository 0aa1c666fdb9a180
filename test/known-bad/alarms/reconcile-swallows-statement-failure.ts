/**
 * Reconciling is treated as best effort: when reading the smallest `wake_at` fails, the scheduler keeps
 * the platform alarm as it is and lets the transaction commit ("the next pass reconciles anyway"). On
 * Postgres a failed statement aborts its transaction, so that COMMIT silently rolls everything back:
 * the caller is told the schedule, cancel or acknowledgement succeeded, and nothing of it was stored.
 * On SQLite a failed statement leaves its transaction open, so the rows commit with a stale platform
 * alarm instead. Only a statement-level fault (`statementFails`) reaches it: the crash, lost-reply,
 * platform-alarm and refused-commit faults never fail one of the scheduler's own statements.
 *
 * Breaks R4 (a transaction that does not commit fails the call with `StorageOperationError`; nothing
 * of it commits): ALM-004, where the failed statement aborts the transaction (Postgres); and R6
 * (reconcile is part of the transaction), where it does not (SQLite): ALM-006, and the platform alarm
 * left later than the smallest wake, ALM-042 and ALM-051.
 */
import { Effect } from "effect"
import { SCHEDULED_TABLE } from "../../../subjects/alarms/schema.ts"
import { knownBadAlarm } from "./kit.ts"

/** Reconcile-swallows-statement-failure known-bad variant. */
export const reconcileSwallowsStatementFailure = knownBadAlarm({
  name: "reconcile-swallows-statement-failure",
  bug: "a failed statement while reconciling the platform alarm is swallowed as best effort, so the transaction is reported committed although it did not commit what the call reported",
  breaks: ["ALM-004", "ALM-006", "ALM-042", "ALM-051"],
  pieces: {
    reconcile: (runtime) => {
      const sql = runtime.store.sql
      return sql<{ readonly wake_at: unknown }>`SELECT wake_at FROM ${sql.literal(SCHEDULED_TABLE)} ORDER BY wake_at, storage_id LIMIT 1`.pipe(
        Effect.matchEffect({
          // "Best effort": keep the platform alarm as it is; the next pass reconciles anyway.
          onFailure: () => Effect.void,
          onSuccess: (rows) => (rows[0] === undefined ? runtime.platformAlarm.delete : runtime.platformAlarm.set(Number(rows[0].wake_at)))
        })
      )
    }
  }
})
