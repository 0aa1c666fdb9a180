/**
 * Own: the sweep's wake identity carries the sweep time, so each sweep wakes under a new identity.
 * Breaks C12 (wake identity stable across sweeps): CLK-014.
 */
import * as Records from "../../../subjects/clocks/records.ts"
import { knownBadClock } from "./kit.ts"

/** Unstable-wake-id known-bad variant. */
export const unstableWakeId = knownBadClock({
  name: "unstable-wake-id",
  bug: "sweepDue's wake identity includes the sweep's time",
  breaks: ["CLK-014"],
  pieces: { wakeSourceId: (source, address, nowMs) => `${Records.wakeSourceId(source, address)}@${nowMs}` }
})
