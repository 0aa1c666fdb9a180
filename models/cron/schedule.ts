/** Declaring a schedule (N1): parse every entry, key it canonically, refuse invalid or duplicate keys. */
import { parseSchedule, timerKeyOf } from "./fields.ts"
import type { ModelEntry, ModelSchedule, ScheduleInput } from "./state.ts"

/**
 * Why a declaration is refused, with what the error names (the API's `InvalidCronEntryError` carries
 * the entry's spec and zone as written, `DuplicateCronKeyError` the shared key): `InvalidCronEntry
 * {"spec":…,"zone":…}` or `DuplicateCronKey {"key":…}`.
 */
export type ScheduleRefusal = string

/** The refusal of the invalid entry `spec` in `zone` (as written). */
export const invalidEntryRefusal = (spec: string, zone: string | null): ScheduleRefusal => `InvalidCronEntry ${JSON.stringify({ spec, zone })}`

/** The refusal of a second entry with the key `key`. */
export const duplicateKeyRefusal = (key: string): ScheduleRefusal => `DuplicateCronKey ${JSON.stringify({ key })}`

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
    if (schedule === null) return invalidEntryRefusal(entry.spec, entry.zone)
    const key = timerKeyOf(schedule)
    if (entries.some((declared) => declared.key === key)) return duplicateKeyRefusal(key)
    entries.push({ key, command: entry.command, payload: entry.payload, schedule })
  }
  return { skipMs: input.skipMs, entries }
}
