/**
 * H2: a failure retry moves `run_at` to the retry time, so `scheduledAt` drifts across retries.
 *
 * Breaks R25 (`run_at` unchanged so `scheduledAt` is stable): ALM-025, and ALM-044 (the timeline keeps
 * scheduledAt stable, citing H2).
 */
import { defaultPlanFailureRetry } from "../../../subjects/alarms/pieces.ts"
import { knownBadAlarm } from "./kit.ts"

/** H2 (run_at rewrite) known-bad variant. */
export const h2RetryRewritesRunAt = knownBadAlarm({
  name: "h2-retry-rewrites-run-at",
  bug: "H2: a failure retry rewrites run_at to the retry time, so scheduledAt drifts",
  breaks: ["ALM-025", "ALM-044"],
  pieces: {
    planFailureRetry: (row, input) => {
      const plan = defaultPlanFailureRetry(row, input)
      return { ...plan, runAtMs: plan.retryAtMs }
    }
  }
})
