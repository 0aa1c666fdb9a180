/**
 * C12's re-announcement, observed where the harness hands the journal over (`journalHarness.ts`): a
 * sweep re-emits clock-scheduled for every pending clock, a `Duplicate` that changes no stored record.
 * Until 2026-12-06 the harness saw a sweep only through the fires its timers made later, so blind bug
 * `clocks-2/sweep-skips-clocks-of-other-owners` (a sweep skips the clocks another process scheduled)
 * was caught under CLK-012 (the fire), not CLK-014 (the sweep). Now:
 * - the check names each pending clock the sweep did not re-announce, and is left out where a fault
 *   may have ended the sweep early;
 * - the blind bug, applied to a copy, is caught under CLK-014 by `clocks/concurrent` at the gate's budget.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as clocksBlindBugs } from "../../blind-bugs/clocks-2.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { FaultedCommand, StepOutcome } from "../../models/clocks/index.ts"
import { announcementChecks } from "../../properties/clocks/checks.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import type { ClocksImplementation } from "../../subjects/clocks/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"

const outcome = (announced: ReadonlyArray<string>, crashed = false): StepOutcome => ({ announced, crashed }) as unknown as StepOutcome
const sweep: FaultedCommand = { op: "sweep", process: "B", withFlow: false } as unknown as FaultedCommand

describe("a sweep's re-announcements (C12)", () => {
  it("names the pending clocks not re-announced, ignores others, and says nothing where a fault struck", () => {
    const [check] = announcementChecks(sweep, outcome(["e1|c1|0", "e2|c2|0"]), ["e2|c2|0", "e9|c9|0"])
    expect(check).toMatchObject({ expected: ["e1|c1|0", "e2|c2|0"], actual: ["e2|c2|0"], rules: ["C12"] })
    const [held] = announcementChecks(sweep, outcome(["e1|c1|0"]), ["e1|c1|0", "e1|c1|0"])
    expect(held!.actual).toEqual(held!.expected)
    expect(announcementChecks({ ...sweep, journalFault: 1 } as FaultedCommand, outcome(["e1|c1|0"]), [])).toEqual([])
    expect(announcementChecks(sweep, outcome(["e1|c1|0"], true), [])).toEqual([])
    expect(announcementChecks({ op: "latchLossy" } as FaultedCommand, outcome([]), [])).toEqual([])
  })

  describe("the blind bug sweep-skips-clocks-of-other-owners, applied to a copy of examples/independent-clocks", () => {
    const copies = useBlindCopy<ClocksImplementation>(clocksBlindBugs, "sweep-skips-clocks-of-other-owners")

    it("clocks/concurrent catches it at the gate's budget on sqlite, under CLK-014", async () => {
      const result = await Effect.runPromise(catchKnownBad({ suite: clocksSuite(copies.blind()), adapter: makeSqliteAdapter(), propertyOrder: ["clocks/concurrent"], stopAfterFailures: 1 }))
      expect(result.caught, result.run.verdict).toBe(true)
      for (const counterexample of result.counterexamples) expect(counterexample.divergence.requirementId).toBe("CLK-014")
    }, 300_000)
  })
})
