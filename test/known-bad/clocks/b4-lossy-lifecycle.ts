/**
 * B4: completion and clock records went to the lossy channel, which may drop them.
 * Breaks C3 (lifecycle records are durable): CLK-003; the journal then cannot explain the rows (IG4): CLK-019.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** B4 known-bad variant. */
export const b4LossyLifecycle = knownBadClock({
  name: "b4-lossy-lifecycle",
  bug: "B4: lifecycle records are emitted on the lossy queue instead of the durable channel",
  breaks: ["CLK-003", "CLK-019"],
  pieces: { durableChannel: (journal, input) => Effect.asVoid(journal.emitLossy(input)) }
})
