/**
 * H6: dispatch is ordered by `run_at` while due-ness uses the effective wake.
 *
 * Breaks R21 (select wake_at <= now ordered by (wake_at, storage_id) up to limit): ALM-021 and
 * ALM-045, both citing H6.
 */
import { Effect } from "effect"
import { ALARM_ROWS_SELECT, decodeStoredAlarm } from "../../../subjects/alarms/store.ts"
import { knownBadAlarm } from "./kit.ts"

/** H6 (run_at order) known-bad variant. */
export const h6DispatchByRunAt = knownBadAlarm({
  name: "h6-dispatch-by-run-at",
  bug: "H6: due rows are ordered (and limited) by run_at although due-ness uses wake_at",
  breaks: ["ALM-021", "ALM-045"],
  pieces: {
    selectDue: (runtime, nowMs, limit) => {
      const sql = runtime.store.sql
      return sql<Record<string, unknown>>`${sql.literal(ALARM_ROWS_SELECT)}
        WHERE a.wake_at <= ${nowMs} ORDER BY a.run_at, a.storage_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(decodeStoredAlarm))
      )
    }
  }
})
