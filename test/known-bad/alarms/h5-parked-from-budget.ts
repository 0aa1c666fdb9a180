/** H5: parking is derived from `attempts >= budget`, so raising the budget un-parks work and re-reports it. */
import { swapOnePiece } from "./variant.ts"

/** H5 known-bad variant. */
export const h5ParkedFromBudget = swapOnePiece(
  {
    id: "h5-parked-from-budget",
    bug: "parked is derived from attempts >= budget (not sticky): raising the budget un-parks and re-reports",
    rules: ["R14", "R25", "R27"],
    piece: "isParked"
  },
  ({ attempts, budget }) => attempts > 0 && attempts >= budget
)
