/** H2: a handler re-arming itself is treated as fresh enrollment, so a self-rearm loop is never charged. */
import { swapOnePiece } from "./variant.ts"

/** H2 (free self-rearm) known-bad variant. */
export const h2FreeSelfRearm = swapOnePiece(
  {
    id: "h2-free-self-rearm",
    bug: "self-rearms from inside a pass are free: attempts reset to 0 instead of being charged",
    rules: ["R13"],
    piece: "scheduleAttempts"
  },
  () => 0
)
