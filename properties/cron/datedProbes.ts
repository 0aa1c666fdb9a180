/**
 * `next` probes pinned to the date of the anchor's transition (`CronScenario.datedProbes`, N2): an
 * interval pattern over the transition's wall hours on that local day and month only. When the
 * transition's gap skips every wall time it names (or its fold repeats them), the next match lies
 * about a year ahead, so the search crosses many days and the zone's other transition of the year,
 * where an answer read from the end of the span alone, or from its first day, goes wrong. `specProbes`
 * allow every day, so their answers lie within a day or two of the transition.
 */
import * as fc from "fast-check"
import type { Anchor, SpecProbe } from "./scenario.ts"

/** Every anchor's transition lies within this long after it. */
const TRANSITION_WITHIN_MS = 3 * 3_600_000

const PROBE_MINUTES: ReadonlyArray<string> = ["*/15", "*/30", "0,30", "*/20", "5,35", "0-59/10"]
const PROBE_HOURS: ReadonlyArray<string> = ["1", "2", "1-2", "0-3", "2,3", "*"]

/** The local day of month and month (1-based) of `epochMs` in `zone`. */
export const localDate = (zone: string, epochMs: number): { readonly day: number; readonly month: number } => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, month: "numeric", day: "numeric" }).formatToParts(new Date(epochMs))
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)!.value)
  return { day: part("day"), month: part("month") }
}

/** Day fields naming the transition's day: alone, with the day before (when there is one), or with the day after. */
const dayFields = (day: number): ReadonlyArray<string> => [`${day}`, day > 1 ? `${day - 1},${day}` : `${day},${day + 2}`, `${day}-${day + 1}`]

/**
 * One dated probe of `anchor`, asked after an instant between 3 h before and 6 h after it.
 *
 * @example fc.sample(datedProbe(ANCHORS[0]!), 1) // [{ spec: "*\/30 2 8 3 *", afterMs: 3_600_000 }]
 */
export const datedProbe = (anchor: Anchor): fc.Arbitrary<SpecProbe> => {
  const { day, month } = localDate(anchor.zone, anchor.atMs + TRANSITION_WITHIN_MS)
  return fc.record({
    spec: fc.tuple(fc.constantFrom(...PROBE_MINUTES), fc.constantFrom(...PROBE_HOURS), fc.constantFrom(...dayFields(day)))
      .map(([minutes, hours, days]) => `${minutes} ${hours} ${days} ${month} *`),
    afterMs: fc.integer({ min: -3 * 3_600_000, max: 6 * 3_600_000 })
  })
}
