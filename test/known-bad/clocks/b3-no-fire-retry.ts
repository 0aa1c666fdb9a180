/**
 * B3: one failed fire killed the timer until the next restart (no redispatch).
 * Breaks C11 (retry with backoff): CLK-013; liveness L1 (the due clock never fires): CLK-020. The dead
 * timer's key is no longer live, so a replayed schedule arms it again and fires at once, where the live
 * retry timer made the replay a no-op (C9, one live timer per key: CLK-011, ambiguous with C10: CLK-012).
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** B3 known-bad variant. */
export const b3NoFireRetry = knownBadClock({
  name: "b3-no-fire-retry",
  bug: "B3: a failed fire ends its timer fiber; nothing redispatches it",
  breaks: ["CLK-013", "CLK-020", "CLK-011"],
  pieces: { retryFire: (fire) => fire.pipe(Effect.catchCause(() => Effect.void)) }
})
