/** H2: a failure retry moves `run_at` to the retry time, so `scheduledAt` drifts across retries. */
import { defaultPlanFailureRetry } from "../../../subjects/alarms/pieces.ts"
import { swapOnePiece } from "./variant.ts"

/** H2 (run_at rewrite) known-bad variant. */
export const h2RetryRewritesRunAt = swapOnePiece(
  {
    id: "h2-retry-rewrites-run-at",
    bug: "a failure retry rewrites run_at to the retry time, so scheduledAt drifts",
    rules: ["R25"],
    piece: "planFailureRetry"
  },
  (row, input) => {
    const plan = defaultPlanFailureRetry(row, input)
    return { ...plan, runAtMs: plan.retryAtMs }
  }
)
