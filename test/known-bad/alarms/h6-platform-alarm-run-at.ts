/** H6: the platform alarm is set to the smallest `run_at`, not the smallest effective wake. */
import { Effect } from "effect"
import { SCHEDULED_TABLE } from "../../../subjects/alarms/schema.ts"
import { swapOnePiece } from "./variant.ts"

/** H6 (platform alarm) known-bad variant. */
export const h6PlatformAlarmRunAt = swapOnePiece(
  {
    id: "h6-platform-alarm-run-at",
    bug: "the platform alarm is the smallest run_at instead of the smallest wake_at",
    rules: ["R6"],
    piece: "reconcile"
  },
  (runtime) => {
    const sql = runtime.store.sql
    return sql<{ readonly run_at: unknown }>`SELECT run_at FROM ${sql.literal(SCHEDULED_TABLE)}
      ORDER BY run_at, storage_id LIMIT 1`.pipe(
      Effect.flatMap((rows) =>
        rows[0] === undefined ? runtime.platformAlarm.delete : runtime.platformAlarm.set(Number(rows[0].run_at))
      )
    )
  }
)
