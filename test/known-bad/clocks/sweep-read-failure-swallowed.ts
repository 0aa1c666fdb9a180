/**
 * Ours: a sweep that cannot read the pending clocks treats the failure as "nothing pending". After a
 * restart during a storage outage the registration sweep reports success having armed nothing, so the
 * clocks scheduled before it never fire until some later sweep. Breaks C12 (every pending clock is
 * re-armed, or the sweep fails): CLK-014; liveness L1 (a due clock fires): CLK-020.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** A failed read of the pending clocks swallowed as an empty list. */
export const sweepReadFailureSwallowed = knownBadClock({
  name: "sweep-read-failure-swallowed",
  bug: "a sweep whose read of the pending clocks fails goes on with none, and reports success",
  breaks: ["CLK-014", "CLK-020"],
  pieces: { sweepPending: (store, flowName) => store.pendingClocks(flowName).pipe(Effect.orElseSucceed(() => [])) }
})
