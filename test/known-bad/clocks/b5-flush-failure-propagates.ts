/**
 * B5: a latched lossy-flush failure failed every completion after its commit and made every fire spin.
 * Breaks C3 (a flush failure is ignored): CLK-004; liveness: completions never resumed (CLK-021) and
 * timers spinning (CLK-022).
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** B5 known-bad variant. */
export const b5FlushFailurePropagates = knownBadClock({
  name: "b5-flush-failure-propagates",
  bug: "B5: a failed lossy flush is a defect of the call (and of the fire, which then retries forever)",
  breaks: ["CLK-004", "CLK-021", "CLK-022"],
  pieces: { flushLossy: (journal) => Effect.orDie(journal.flush) }
})
