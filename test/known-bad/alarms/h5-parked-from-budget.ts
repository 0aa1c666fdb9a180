/**
 * H5: parking is derived from `attempts >= budget`, so raising the budget un-parks work and re-reports it.
 *
 * Breaks R14 (parking is sticky until progress): ALM-014; R25 (parked if already parked): ALM-025;
 * the requirements citing H5: ALM-044 (stays parked when the budget is raised), ALM-040 (only progress
 * un-parks), ALM-041 and ALM-018 (one report per parked episode).
 */
import { knownBadAlarm } from "./kit.ts"

/** H5 known-bad variant. */
export const h5ParkedFromBudget = knownBadAlarm({
  name: "h5-parked-from-budget",
  bug: "H5: parked is derived from attempts >= budget (not sticky): raising the budget un-parks and re-reports",
  breaks: ["ALM-014", "ALM-025", "ALM-044", "ALM-040", "ALM-041", "ALM-018"],
  pieces: { isParked: ({ attempts, budget }) => attempts > 0 && attempts >= budget }
})
