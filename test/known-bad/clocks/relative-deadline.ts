/**
 * Own: a replayed scheduleClock recomputes the deadline from the replay's now (a relative deadline).
 * Breaks C8 (absolute deadline, stored row returned unchanged): CLK-010.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** Relative-deadline known-bad variant. */
export const relativeDeadline = knownBadClock({
  name: "relative-deadline",
  bug: "scheduleClock writes now + duration on every replay",
  breaks: ["CLK-010"],
  pieces: {
    storeClock: (store, row, owner) => Effect.flatMap(store.upsertClockDeadline(row, owner), () => Effect.map(store.clock(row), (stored) => stored ?? row))
  }
})
