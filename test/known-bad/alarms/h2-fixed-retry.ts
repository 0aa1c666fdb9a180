/**
 * H2: a failure is retried every 30 s forever: no exponential backoff, no budget, never parked.
 *
 * Breaks R25 (charge up to the budget, park at it, retry_at = now + retryDelay): ALM-025; R2 (the
 * delay curve): ALM-002; R14 (park at the budget): ALM-014; and the default timeline ALM-044 (H2).
 */
import { knownBadAlarm } from "./kit.ts"

/** Fixed delay of the pre-budget scheduler. */
export const FIXED_RETRY_DELAY_MS = 30_000

/** H2 (fixed retry) known-bad variant. */
export const h2FixedRetry = knownBadAlarm({
  name: "h2-fixed-retry",
  bug: "H2: failures retry at a fixed 30 s forever, with no attempt budget and no parking",
  breaks: ["ALM-025", "ALM-002", "ALM-014", "ALM-044"],
  pieces: {
    planFailureRetry: (row, input) => ({
      attempts: row.attempts + 1,
      parked: false,
      retryAtMs: input.nowMs + FIXED_RETRY_DELAY_MS,
      runAtMs: row.runAtMs
    })
  }
})
