/**
 * The retry time is ignored for dispatch: `wake_at` is written as `run_at`, so backoff never delays.
 *
 * Breaks the stored effective wake `max(run_at, retry_at ?? run_at)` written with the attempts row
 * (R17): ALM-017; R6 (the platform alarm is the smallest effective wake): ALM-006 and ALM-042; R21
 * (due means wake_at <= now, in wake order): ALM-021 and ALM-045; and the backoff timeline: ALM-044.
 */
import { knownBadAlarm } from "./kit.ts"

/** Wake-not-materialised known-bad variant. */
export const wakeNotMaterialised = knownBadAlarm({
  name: "wake-not-materialised",
  bug: "wake_at is not materialised from retry_at (always run_at), so retries are dispatched immediately",
  breaks: ["ALM-017", "ALM-006", "ALM-042", "ALM-021", "ALM-045", "ALM-044"],
  pieces: { effectiveWakeMs: (runAtMs) => runAtMs }
})
