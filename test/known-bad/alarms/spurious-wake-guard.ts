/**
 * Liveness: dispatch treats a wake as spurious unless the platform alarm is set and due, and then
 * selects nothing. While the process runs, the platform alarm always equals the smallest wake (R6), so
 * "set and due" holds exactly when some row is due and every step looks right. But the platform
 * consumes its alarm when it runs the alarm handler (`getAlarm` answers null until the handler sets it
 * again), so every real delivery looks spurious: due alarms are never dispatched, only re-armed.
 *
 * Breaks R21 (due rows are selected by `wake_at <= now`, whatever the platform alarm holds) only when
 * the platform delivers, which only the liveness phase does: ALM-050 (every due alarm eventually
 * dispatches).
 */
import { Effect } from "effect"
import { wakeOrderedSelectDue } from "../../../subjects/alarms/pieces.ts"
import { knownBadAlarm } from "./kit.ts"

/** The spurious-wake guard known-bad (caught only by the liveness requirement ALM-050). */
export const spuriousWakeGuard = knownBadAlarm({
  name: "spurious-wake-guard",
  bug: "dispatch selects nothing unless the platform alarm is set and due, but the platform clears its alarm while the alarm handler runs",
  breaks: ["ALM-050"],
  pieces: {
    selectDue: (runtime, nowMs, limit) =>
      Effect.flatMap(runtime.platformAlarm.get, (alarmMs) =>
        alarmMs === null || alarmMs > nowMs ? Effect.succeed([]) : wakeOrderedSelectDue(runtime, nowMs, limit))
  }
})
