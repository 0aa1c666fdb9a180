/** Declaring a schedule (N1): parse every entry, key it canonically, refuse invalid or duplicate keys. */
import { parseSchedule, timerKeyOf } from "./fields.ts"
import type { ModelEntry, ModelSchedule, ScheduleInput } from "./state.ts"

/** Why a declaration is refused. */
export type ScheduleRefusal = "InvalidCronEntry" | "DuplicateCronKey"

/**
 * The declared schedule, or why it is refused (the first invalid entry wins over a duplicate key
 * only when it comes first).
 *
 * @example declareSchedule({ skipMs: 60_000, entries: [{ spec: "@every 1m", zone: null, command: "ping", payload: "{}" }] })
 */
export const declareSchedule = (input: ScheduleInput): ModelSchedule | ScheduleRefusal => {
  const entries: Array<ModelEntry> = []
  for (const entry of input.entries) {
    const schedule = parseSchedule(entry.spec, entry.zone)
    if (schedule === null) return "InvalidCronEntry"
    const key = timerKeyOf(schedule)
    if (entries.some((declared) => declared.key === key)) return "DuplicateCronKey"
    entries.push({ key, command: entry.command, payload: entry.payload, schedule })
  }
  return { skipMs: input.skipMs, entries }
}
