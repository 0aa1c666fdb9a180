/** H6: dispatch is ordered by `run_at` while due-ness uses the effective wake. */
import { Effect } from "effect"
import { ALARM_ROWS_SELECT, decodeStoredAlarm } from "../../../subjects/alarms/store.ts"
import { swapOnePiece } from "./variant.ts"

/** H6 (run_at order) known-bad variant. */
export const h6DispatchByRunAt = swapOnePiece(
  {
    id: "h6-dispatch-by-run-at",
    bug: "due rows are ordered (and limited) by run_at although due-ness uses wake_at",
    rules: ["R21"],
    piece: "selectDue"
  },
  (runtime, nowMs, limit) => {
    const sql = runtime.store.sql
    return sql<Record<string, unknown>>`${sql.literal(ALARM_ROWS_SELECT)}
      WHERE a.wake_at <= ${nowMs} ORDER BY a.run_at, a.storage_id LIMIT ${limit}`.pipe(
      Effect.map((rows) => rows.map(decodeStoredAlarm))
    )
  }
)
