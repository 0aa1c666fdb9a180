/**
 * Ours: a registration overwrites the recorded turn budget with its own instead of keeping the greater,
 * so a deploy with a shorter turn lowers T and the sweep deletes unreferenced content before
 * granted_until + G + T + S of the longest turn recorded (content.md "Parameters": T only grows).
 *
 * Breaks the lower bound on deletion time (CNT-014).
 */
import { knownBadContent } from "./kit.ts"

/** The last registered turn wins. */
export const turnRecordedLatest = knownBadContent({
  name: "turn-recorded-latest",
  bug: "a registration sets turn_ms to its own turn budget, so a shorter one registered later lowers T",
  breaks: ["CNT-014"],
  pieces: { recordedTurnSql: () => "excluded.turn_ms" }
})
