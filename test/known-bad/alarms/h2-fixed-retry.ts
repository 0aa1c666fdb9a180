/** H2: a failure is retried every 30 s forever: no exponential backoff, no budget, never parked. */
import { swapOnePiece } from "./variant.ts"

/** Fixed delay of the pre-budget scheduler. */
export const FIXED_RETRY_DELAY_MS = 30_000

/** H2 (fixed retry) known-bad variant. */
export const h2FixedRetry = swapOnePiece(
  {
    id: "h2-fixed-retry",
    bug: "failures retry at a fixed 30 s forever, with no attempt budget and no parking",
    rules: ["R2", "R14", "R25"],
    piece: "planFailureRetry"
  },
  (row, input) => ({
    attempts: row.attempts + 1,
    parked: false,
    retryAtMs: input.nowMs + FIXED_RETRY_DELAY_MS,
    runAtMs: row.runAtMs
  })
)
