/**
 * Park reports are delivered inside the transaction, before commit: a rolled-back park is reported.
 *
 * Breaks R4 (park reports only after the commit): ALM-004; R27 (emitted after commit): ALM-027; and
 * ALM-041 (only after the commit; a crash between commit and report may lose it, never duplicate it).
 */
import { Effect } from "effect"
import { knownBadAlarm } from "./kit.ts"

/** Report-before-commit known-bad variant. */
export const reportBeforeCommit = knownBadAlarm({
  name: "report-before-commit",
  bug: "park reports are sent before commit, so a park that rolls back is still reported",
  breaks: ["ALM-004", "ALM-027", "ALM-041"],
  pieces: {
    commitThenReport: (steps) =>
      Effect.gen(function*() {
        const result = yield* steps.transact(Effect.gen(function*() {
          const value = yield* steps.body
          yield* steps.report
          yield* steps.reconcile
          return value
        }))
        yield* steps.afterCommit
        return result
      })
  }
})
