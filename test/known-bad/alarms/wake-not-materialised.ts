/** The retry time is ignored for dispatch: `wake_at` is written as `run_at`, so backoff never delays. */
import { swapOnePiece } from "./variant.ts"

/** Wake-not-materialised known-bad variant. */
export const wakeNotMaterialised = swapOnePiece(
  {
    id: "wake-not-materialised",
    bug: "wake_at is not materialised from retry_at (always run_at), so retries are dispatched immediately",
    rules: ["R15", "R21", "R6"],
    piece: "effectiveWakeMs"
  },
  (runAtMs) => runAtMs
)
