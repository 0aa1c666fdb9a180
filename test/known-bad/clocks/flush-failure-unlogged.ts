/**
 * A failed lossy flush ignored without a word: the call and the fire go on (as C3 requires) but the
 * failure is never logged, so an operator never learns the lossy channel is latched. Breaks C3's
 * "a flush failure is logged": CLK-004.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** The flush's failure swallowed silently. */
export const flushFailureUnlogged = knownBadClock({
  name: "flush-failure-unlogged",
  bug: "a failed lossy flush is ignored but never logged (C3: it is logged and ignored)",
  breaks: ["CLK-004"],
  pieces: { flushLossy: (journal) => Effect.ignore(journal.flush) }
})
