/** Every write that leaves a row parked queues a report, so a parked alarm is re-reported on every pass. */
import { swapOnePiece } from "./variant.ts"

/** Re-reporting known-bad variant. */
export const parkRereported = swapOnePiece(
  {
    id: "park-rereported",
    bug: "a parked alarm is reported again on every parked pass instead of once per episode",
    rules: ["R18", "R27"],
    piece: "opensParkedEpisode"
  },
  (_wasParked, parkedNow) => parkedNow
)
