/**
 * The clocks known-bads that only overlapping transactions show (two processes scheduling one clock at
 * once, `properties/clocks/scheduleRace.ts`) are caught on a Postgres server, where the second
 * schedule runs into the first's open transaction on its own session and is seen waiting on its lock.
 * On the embedded backends the two schedules run one after the other, and these bugs are right there.
 * Caught at the gate's budget and seeds, under only the requirements each bug breaks, with a short
 * counterexample whose last step is the scheduling race, and re-executing it reproduces the divergence.
 */
import { describe, it } from "vitest"
import { clocksSuite } from "../../../properties/clocks/index.ts"
import { expectCaughtByRace } from "../../support/expectCaughtByRace.ts"
import { usePostgresAdapter } from "../../support/nodeAdapters.ts"
import { scheduleCheckThenUpsert } from "./schedule-check-then-upsert.ts"

/** Known-bads only overlapping scheduling transactions show. */
const overlapOnlyKnownBadClocks = [scheduleCheckThenUpsert]
/** Bound on a minimized counterexample (measured: 2 steps, a scheduling race and the advance that reads its timers). */
const MAX_STEPS = 4
const TIMEOUT_MS = 600_000

const postgres = usePostgresAdapter()

describe("known-bad clocks that only overlapping schedules show, on postgres", () => {
  it("each is caught, attributed to a requirement it breaks, with a short counterexample that replays", async () => {
    for (const bad of overlapOnlyKnownBadClocks) {
      await expectCaughtByRace({ bad, suite: clocksSuite(bad.implementation), adapter: postgres(), propertyOrder: ["clocks/concurrent"], maxSteps: MAX_STEPS, raceOperation: "scheduleRace" })
    }
  }, TIMEOUT_MS)
})
