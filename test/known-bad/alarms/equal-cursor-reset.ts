/** An equal progress cursor counts as progress: replays are not dropped and reset the budget. */
import { swapOnePiece } from "./variant.ts"

/** Equal-cursor known-bad variant. */
export const equalCursorReset = swapOnePiece(
  {
    id: "equal-cursor-reset",
    bug: "an equal cursor counts as progress: external replays are not dropped and reset the budget",
    rules: ["R11", "R12", "R13"],
    piece: "cursorAdvances"
  },
  (inputProgress, storedProgress) => inputProgress >= storedProgress
)
