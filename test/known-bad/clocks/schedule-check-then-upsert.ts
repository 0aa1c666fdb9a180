/**
 * Own: scheduleClock looks the clock up and, finding none, upserts its own deadline. One schedule at a
 * time is right; two processes scheduling one clock at once (a flow replayed on two engines) both find
 * nothing, and the later commit overwrites the first's deadline. Breaks C8 (the stored row is returned
 * unchanged; `dueAt` is computed once): CLK-010. Only overlapping transactions show it, so it is
 * caught on a Postgres server only (`caught-concurrent-postgres.test.ts`).
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** Check-then-upsert known-bad variant. */
export const scheduleCheckThenUpsert = knownBadClock({
  name: "schedule-check-then-upsert",
  bug: "scheduleClock reads the clock, then upserts its own deadline when it found none",
  breaks: ["CLK-010"],
  pieces: {
    storeClock: (store, row, owner) =>
      Effect.flatMap(store.clock(row), (found) =>
        found !== undefined ? Effect.succeed(found) : Effect.flatMap(store.upsertClockDeadline(row, owner), () => Effect.map(store.clock(row), (stored) => stored ?? row)))
  }
})
