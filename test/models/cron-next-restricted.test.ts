/**
 * The model's `next` on restricted day-of-month, month and day-of-week fields (alone and both: OR), as
 * the cron generators now spell them (N1, N2), checked against the shipped implementation (croner,
 * adapted to N2) on instants around every 2026 transition and searches that run weeks or months
 * ahead: the model skips runs of non-matching days whole, which must not change any answer.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nextInstant, parseSchedule, timerKeyOf } from "../../models/cron/index.ts"
import { nextRun } from "../../subjects/cron/next.ts"
import { defaultCronPieces } from "../../subjects/cron/pieces.ts"
import { parseSpec } from "../../subjects/cron/spec.ts"
import { DST_TRANSITIONS_2026 } from "../support/dstTransitions.ts"

/** The 2026 transitions, plus a zone that is not a whole hour off UTC (no transition there). */
const TRANSITIONS: ReadonlyArray<readonly [string, number]> = [
  ...DST_TRANSITIONS_2026,
  ["Asia/Kathmandu", Date.UTC(2026, 0, 1, 20)]
]

const minute = fc.constantFrom("0", "30", "*/15", "5,35")
const hour = fc.constantFrom("1", "2", "1-2", "0-3", "*/2", "*")
const day = fc.constantFrom("*", "1-31", "1-7", "*/2", "15-31", "1,15")
const month = fc.constantFrom("*", "3,10", "MAR,OCT", "1-4", "10-12", "OCT-DEC", "3-4,10-11")
const weekday = fc.constantFrom("*", "0", "7", "SUN", "SAT,SUN", "1-5", "MON")
const separator = fc.constantFrom(" ", "  ", "\t")
const spec = fc.tuple(minute, hour, day, month, weekday, separator).map(([m, h, d, mo, w, s]) => [m, h, d, mo, w].join(s))
const instant = fc.tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -2 * 86_400_000, max: 2 * 86_400_000 }))
  .map(([[zone, atMs], offsetMs]) => ({ zone, afterMs: atMs + offsetMs }))

describe("cron next on restricted day and month fields", () => {
  it("model and implementation agree on the next instant and the timer key", () => {
    fc.assert(fc.property(spec, instant, (text, { zone, afterMs }) => {
      const schedule = parseSchedule(text, zone)
      expect(schedule, text).not.toBeNull()
      const parsed = parseSpec(text, zone)
      expect(defaultCronPieces.timerKeyOf(parsed, text, zone), text).toBe(timerKeyOf(schedule!))
      expect(nextRun(parsed, afterMs), `${JSON.stringify(text)} in ${zone} after ${new Date(afterMs).toISOString()}`).toBe(nextInstant(schedule!, afterMs))
    }), { numRuns: 300, seed: 21 })
  })

  it("a restricted day-of-month and day-of-week combine with OR; a star does not restrict", () => {
    const after = Date.UTC(2026, 2, 8, 0, 0)
    // 2026-03-08 is a Sunday; the 15th is the next day-of-month 15.
    const sundayOr15 = parseSchedule("0 12 15 * SUN", "UTC")!
    expect(new Date(nextInstant(sundayOr15, after)!).toISOString()).toBe("2026-03-08T12:00:00.000Z")
    const only15 = parseSchedule("0 12 15 * *", "UTC")!
    expect(new Date(nextInstant(only15, after)!).toISOString()).toBe("2026-03-15T12:00:00.000Z")
    const allDaysOrMonday = parseSchedule("0 12 1-31 * MON", "UTC")!
    // Every day matches, so it is the schedule `0 12 * * *` and has its key (N1); `0 12 * * MON` is another.
    expect(timerKeyOf(allDaysOrMonday)).toBe("$cron:UTC 0 12 * * *")
    expect(timerKeyOf(parseSchedule("0 12 * * *", "UTC")!)).toBe("$cron:UTC 0 12 * * *")
    expect(timerKeyOf(parseSchedule("0 12 * * 0-6", "UTC")!)).toBe("$cron:UTC 0 12 * * *")
    expect(timerKeyOf(parseSchedule("0 12 1-31 * *", "UTC")!)).toBe("$cron:UTC 0 12 * * *")
    expect(timerKeyOf(parseSchedule("0 12 * * MON", "UTC")!)).toBe("$cron:UTC 0 12 * * 1")
    expect(timerKeyOf(parseSchedule("0 12 1-30 * MON", "UTC")!)).toBe("$cron:UTC 0 12 1-30 * 1")
    expect(new Date(nextInstant(allDaysOrMonday, after)!).toISOString()).toBe("2026-03-08T12:00:00.000Z")
  })

  it("a skipped wall time fires after the gap only in a matching month (N2)", () => {
    const beforeGap = Date.UTC(2026, 2, 8, 5, 30) // New York, 00:30 EST on the day of the March gap
    const march = parseSchedule("30 2 * 3 SUN", "America/New_York")!
    expect(new Date(nextInstant(march, beforeGap)!).toISOString()).toBe("2026-03-08T07:00:00.000Z")
    const october = parseSchedule("30 2 * 10 SUN", "America/New_York")!
    expect(new Date(nextInstant(october, beforeGap)!).toISOString()).toBe("2026-10-04T06:30:00.000Z")
  })
})
