/**
 * The model's `next` (a brute-force scan of wall-clock instants through Intl) and the shipped
 * implementation's `next` (croner, expanded to fixed-time patterns near DST transitions) check each
 * other on generated schedules and instants around every 2026 transition of the zones the suite uses;
 * on fixed-time patterns the model also agrees with croner as it is (whose fixed-time DST rules are
 * N2). Hand-picked cases pin N2 itself: gaps fire once after the gap, folds fire on their first pass,
 * `@every` counts from the epoch, `next` is strictly after.
 */
import { Cron } from "croner"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nextInstant, parseSchedule, timerKeyOf } from "../../models/cron/index.ts"
import { nextRun } from "../../subjects/cron/next.ts"
import { parseSpec } from "../../subjects/cron/spec.ts"
import { defaultCronPieces } from "../../subjects/cron/pieces.ts"
import { DST_TRANSITIONS_2026 } from "../support/dstTransitions.ts"

/** The 2026 transitions, plus Kathmandu (not a whole hour off UTC, no transition) and UTC. */
const TRANSITIONS: ReadonlyArray<readonly [string, number]> = [
  ...DST_TRANSITIONS_2026,
  ["Asia/Kathmandu", Date.UTC(2026, 5, 1)],
  ["UTC", Date.UTC(2026, 0, 1)]
]

const minute = fc.constantFrom("0", "15", "30", "45", "*/15", "*/30", "5,35", "*/20", "0-10/5", "59")
const hour = fc.constantFrom("*", "0", "1", "2", "3", "1-2", "0-3", "*/2", "23", "1,13")
const day = fc.constantFrom("*", "*", "*", "1", "1-7")
const weekday = fc.constantFrom("*", "*", "*", "0", "1-5", "SAT,SUN")
const spec = fc.tuple(minute, hour, day, weekday).map(([m, h, d, w]) => `${m} ${h} ${d} * ${w}`)
const instant = fc.tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 })).map(([[zone, atMs], offsetMs]) => ({ zone, afterMs: atMs + offsetMs }))

describe("cron next: model and implementation check each other", () => {
  it("agree on generated schedules and instants around every transition", () => {
    fc.assert(fc.property(spec, instant, (text, { zone, afterMs }) => {
      const model = nextInstant(parseSchedule(text, zone)!, afterMs)
      const implementation = nextRun(parseSpec(text, zone), afterMs)
      expect(implementation, `${text} in ${zone} after ${new Date(afterMs).toISOString()}`).toBe(model)
    }), { numRuns: 300, seed: 12 })
  })

  it("agree with croner itself on fixed-time patterns (croner's fixed-time DST rules are N2)", () => {
    const fixed = fc.tuple(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 23 })).map(([m, h]) => `${m} ${h} * * *`)
    fc.assert(fc.property(fixed, instant, (text, { zone, afterMs }) => {
      const croner = new Cron(text, { timezone: zone, mode: "5-part", paused: true }).nextRun(new Date(afterMs))!.getTime()
      expect(nextInstant(parseSchedule(text, zone)!, afterMs), `${text} in ${zone}`).toBe(croner)
    }), { numRuns: 200, seed: 13 })
  })

  it("agree on canonical timer keys, and equivalent spellings share one", () => {
    const pairs: ReadonlyArray<readonly [string, string]> = [
      ["*/30 * * * *", "0,30 0-23 * 1-12 *"],
      ["0,15,30,45 1,2 * JAN-DEC *", "*/15 1-2 * * *"],
      ["00 02 * * *", "0 2 * * *"],
      ["0 9 * * MON-FRI", "0 9 * * 1-5"],
      ["0 9 * * 7", "0 9 * * SUN"]
    ]
    for (const [a, b] of pairs) {
      const modelA = timerKeyOf(parseSchedule(a, "Europe/London")!)
      expect(timerKeyOf(parseSchedule(b, "Europe/London")!), `${a} ~ ${b}`).toBe(modelA)
      expect(defaultCronPieces.timerKeyOf(parseSpec(a, "Europe/London"), a, "Europe/London")).toBe(modelA)
      expect(defaultCronPieces.timerKeyOf(parseSpec(b, "Europe/London"), b, "Europe/London")).toBe(modelA)
    }
    expect(timerKeyOf(parseSchedule("@every 1m", null)!)).toBe("$cron:@every 60000ms")
    expect(defaultCronPieces.timerKeyOf(parseSpec("@every 60s", null), "@every 60s", null)).toBe("$cron:@every 60000ms")
    expect(timerKeyOf(parseSchedule("0 * * * *", "Etc/UTC")!)).toBe("$cron:UTC 0 * * * *")
  })

  it("refuse the same invalid specs", () => {
    for (const [text, zone] of [["61 * * * *", "UTC"], ["* * *", "UTC"], ["@every 500ms", null], ["5/15 * * * *", "UTC"], ["0 * * * *", "Mars/Base"]] as const) {
      expect(parseSchedule(text, zone), text).toBeNull()
      expect(() => parseSpec(text, zone), text).toThrow()
    }
  })
})

describe("cron next: N2 by example", () => {
  const at = (iso: string) => Date.parse(iso)
  const next = (text: string, zone: string | null, iso: string) => new Date(nextInstant(parseSchedule(text, zone)!, at(iso))!).toISOString()

  it("a wall time skipped by a gap fires once, at the first instant after the gap", () => {
    expect(next("30 2 * * *", "America/New_York", "2026-03-08T05:00:00Z")).toBe("2026-03-08T07:00:00.000Z")
    expect(next("*/20 2 * * *", "America/New_York", "2026-03-08T05:00:00Z")).toBe("2026-03-08T07:00:00.000Z")
    expect(next("*/20 2 * * *", "America/New_York", "2026-03-08T07:00:00Z")).toBe("2026-03-09T06:00:00.000Z")
    expect(next("15 2 * * *", "Australia/Lord_Howe", "2026-10-03T12:00:00Z")).toBe("2026-10-03T15:30:00.000Z")
  })

  it("a wall time repeated by a fold fires only at its first occurrence", () => {
    expect(next("30 1 * * *", "America/New_York", "2026-11-01T04:00:00Z")).toBe("2026-11-01T05:30:00.000Z")
    expect(next("30 1 * * *", "America/New_York", "2026-11-01T05:30:00Z")).toBe("2026-11-02T06:30:00.000Z")
    expect(next("*/30 * * * *", "Europe/London", "2026-10-25T00:40:00Z")).toBe("2026-10-25T02:00:00.000Z")
    expect(next("45 1 * * *", "Australia/Lord_Howe", "2026-04-04T14:50:00Z")).toBe("2026-04-05T15:15:00.000Z")
  })

  it("a zone 5:45 off UTC, @every from the epoch, strictly after", () => {
    expect(next("0 * * * *", "Asia/Kathmandu", "2026-01-01T00:00:00Z")).toBe("2026-01-01T00:15:00.000Z")
    expect(nextInstant(parseSchedule("@every 90s", null)!, 90_000)).toBe(180_000)
    expect(nextInstant(parseSchedule("@every 90s", null)!, 89_999)).toBe(90_000)
    expect(next("0 0 * * *", null, "2026-01-02T00:00:00Z")).toBe("2026-01-03T00:00:00.000Z")
  })
})
