/**
 * H3: when `onFailure` itself fails, the row is not rescheduled and keeps no recovery deadline.
 *
 * Breaks R24 (the action defaults to retry and is applied before an onFailure failure is re-raised):
 * ALM-024 (H3); R25 (a failed row not changed in the pass is rescheduled): ALM-025; and through R25 the
 * backoff timeline ALM-044 (an always-failing alarm whose onFailure fails is never backed off or parked).
 */
import { Exit } from "effect"
import { defaultDecideFailure } from "../../../subjects/alarms/pieces.ts"
import { knownBadAlarm } from "./kit.ts"

/** H3 known-bad variant. */
export const h3OnFailureSkipsReschedule = knownBadAlarm({
  name: "h3-onfailure-skips-reschedule",
  bug: "H3: a failing onFailure skips the reschedule, leaving the row with no recovery deadline",
  breaks: ["ALM-024", "ALM-025", "ALM-044"],
  pieces: {
    decideFailure: (input) => (Exit.isFailure(input.actionExit) ? { mode: "none" } : defaultDecideFailure(input))
  }
})
