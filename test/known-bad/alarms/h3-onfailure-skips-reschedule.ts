/** H3: when `onFailure` itself fails, the row is not rescheduled and keeps no recovery deadline. */
import { Exit } from "effect"
import { defaultDecideFailure } from "../../../subjects/alarms/pieces.ts"
import { swapOnePiece } from "./variant.ts"

/** H3 known-bad variant. */
export const h3OnFailureSkipsReschedule = swapOnePiece(
  {
    id: "h3-onfailure-skips-reschedule",
    bug: "a failing onFailure skips the reschedule, leaving the row with no recovery deadline",
    rules: ["R24"],
    piece: "decideFailure"
  },
  (input) => (Exit.isFailure(input.actionExit) ? { mode: "none" } : defaultDecideFailure(input))
)
