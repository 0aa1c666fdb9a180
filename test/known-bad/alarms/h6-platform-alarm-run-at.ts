/**
 * H6: the platform alarm is set to the smallest `run_at`, not the smallest effective wake.
 *
 * Breaks R6 (the platform alarm is the smallest wake_at): ALM-006 and ALM-042, both citing H6.
 */
import { Effect } from "effect"
import { SCHEDULED_TABLE } from "../../../subjects/alarms/schema.ts"
import { knownBadAlarm } from "./kit.ts"

/** H6 (platform alarm) known-bad variant. */
export const h6PlatformAlarmRunAt = knownBadAlarm({
  name: "h6-platform-alarm-run-at",
  bug: "H6: the platform alarm is the smallest run_at instead of the smallest wake_at",
  breaks: ["ALM-006", "ALM-042"],
  pieces: {
    reconcile: (runtime) => {
      const sql = runtime.store.sql
      return sql<{ readonly run_at: unknown }>`SELECT run_at FROM ${sql.literal(SCHEDULED_TABLE)}
        ORDER BY run_at, storage_id LIMIT 1`.pipe(
        Effect.flatMap((rows) =>
          rows[0] === undefined ? runtime.platformAlarm.delete : runtime.platformAlarm.set(Number(rows[0].run_at))
        )
      )
    }
  }
})
