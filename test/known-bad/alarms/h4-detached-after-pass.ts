/** H4: a fiber forked by a handler can still schedule after the handler's pass has ended. */
import { swapOnePiece } from "./variant.ts"

/** H4 known-bad variant. */
export const h4DetachedAfterPass = swapOnePiece(
  {
    id: "h4-detached-after-pass",
    bug: "a fiber forked by a handler can still schedule after the pass ended",
    rules: ["R5", "R9"],
    piece: "passAllowsSchedule"
  },
  () => true
)
