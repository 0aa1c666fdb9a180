/**
 * N2 over searches that span a year: interval patterns pinned to the local date of a 2026 transition
 * (`properties/cron/datedProbes.ts`). When the transition skips or repeats every wall time they name,
 * croner's answer lies about a year ahead, beyond the zone's other transition and up to the next
 * year's one, whose gap may skip the very wall times the pattern names. The shipped `next` handled
 * only the first transition of a search, and so answered a day late there (found by the dated probes
 * on 2026-12-04); model and implementation must agree on every such search.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nextInstant, parseSchedule } from "../../models/cron/index.ts"
import { datedProbe, localDate } from "../../properties/cron/datedProbes.ts"
import { ANCHORS } from "../../properties/cron/scenario.ts"
import { nextRun } from "../../subjects/cron/next.ts"
import { parseSpec } from "../../subjects/cron/spec.ts"

const YEAR_MS = 365 * 86_400_000

describe("cron next on specs pinned to a transition's date", () => {
  it("answers the next year's gap, not the day after it, when the gap skips every wall time the spec names", () => {
    const gap2026 = Date.UTC(2026, 2, 29, 1) // Europe/London: 01:00 GMT becomes 02:00 BST
    const spec = "*/15 1 28,29 3 *"
    const expected = Date.UTC(2027, 2, 28, 1) // 2027's gap (28 March): the first instant after it
    expect(nextInstant(parseSchedule(spec, "Europe/London")!, gap2026)).toBe(expected)
    expect(nextRun(parseSpec(spec, "Europe/London"), gap2026)).toBe(expected)
  })

  it("model and implementation agree on every dated probe of every anchor", () => {
    const probes = fc.constantFrom(...ANCHORS).chain((anchor) => datedProbe(anchor).map((probe) => ({ anchor, probe })))
    let yearLong = 0
    fc.assert(fc.property(probes, ({ anchor, probe }) => {
      const afterMs = anchor.atMs + probe.afterMs
      const schedule = parseSchedule(probe.spec, anchor.zone)
      expect(schedule, probe.spec).not.toBeNull()
      const expected = nextInstant(schedule!, afterMs)
      if (expected !== null && expected - afterMs > YEAR_MS / 2) yearLong++
      expect(nextRun(parseSpec(probe.spec, anchor.zone), afterMs), `${JSON.stringify(probe.spec)} in ${anchor.zone} after ${new Date(afterMs).toISOString()}`).toBe(expected)
    }), { numRuns: 300, seed: 4 })
    expect(yearLong).toBeGreaterThan(20)
  })

  it("pins the probes to the transition's local date", () => {
    expect(localDate("Europe/London", Date.UTC(2026, 2, 29, 1))).toEqual({ day: 29, month: 3 })
    expect(localDate("Australia/Lord_Howe", Date.UTC(2026, 9, 3, 15, 30))).toEqual({ day: 4, month: 10 })
    const specs = fc.sample(datedProbe(ANCHORS[0]!), { numRuns: 50, seed: 1 }).map((probe) => probe.spec)
    for (const spec of specs) expect(spec, spec).toMatch(/^\S+ \S+ (8|7,8|8-9) 3 \*$/)
  })
})
