/**
 * Own: deferredDoneIfWaiting ignores the run's waiting state.
 * Breaks C6 (NotWaiting writes and resumes nothing): CLK-008.
 */
import { knownBadClock } from "./kit.ts"

/** Waiting-unchecked known-bad variant. */
export const waitingUnchecked = knownBadClock({
  name: "waiting-unchecked",
  bug: "deferredDoneIfWaiting completes whatever the run waits for",
  breaks: ["CLK-008"],
  pieces: { waitingMatches: () => true }
})
