/**
 * B1a: the fire's CAS of completedAt (with clock-completed) ran before, and in another transaction
 * than, the deferred completion; a crash between them left a fired clock whose run never completes.
 * Breaks C10 (one transaction, in order): CLK-012; C4 (state and records together): CLK-005. When the
 * split fire fails and is retried, its attempts commit at other times than the one-transaction fire's,
 * so the retry timeline differs too (C11: CLK-013, legitimately ambiguous with the two above).
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** B1a known-bad variant. */
export const b1aCasBeforeCompletion = knownBadClock({
  name: "b1a-cas-before-completion",
  bug: "B1a: the clock's CAS commits in its own transaction before the deferred completion",
  breaks: ["CLK-012", "CLK-005", "CLK-013"],
  pieces: {
    fireOrder: (runtime, steps) => Effect.andThen(runtime.sql.withTransaction(steps.casAndRecord).pipe(Effect.orDie), steps.complete(Effect.void))
  }
})
