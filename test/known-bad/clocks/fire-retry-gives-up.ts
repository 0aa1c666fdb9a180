/**
 * Ours: a retry budget where C11 has none. A failed fire is retried eight times with the backoff, then
 * its timer dies, so a journal or storage outage that outlasts the ninth attempt leaves the clock
 * pending until the next restart, although the storage came back. Breaks C11 (retried forever):
 * CLK-013; liveness L1 (the due clock never fires): CLK-020.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** A fire retried a bounded number of times, then abandoned. */
export const fireRetryGivesUp = knownBadClock({
  name: "fire-retry-gives-up",
  bug: "a failed fire is retried eight times, then its timer dies; C11 retries until durably acknowledged",
  breaks: ["CLK-013", "CLK-020"],
  pieces: { retryFire: (fire, policy) => fire.pipe(Effect.sandbox, Effect.retry({ schedule: policy, times: 8 }), Effect.orDie) }
})
