/**
 * Own: raising a grant's horizon is treated as best effort. A failed raise statement is swallowed as
 * if it had raised the horizon to the grant's expiry, so the grant is signed. On Postgres the failed
 * statement aborted the transaction: its COMMIT rolls back without an error, the stored horizon never
 * moved, and a sweep may delete content a live grant still covers.
 * Caught only by the failed-statement fault (`statementFails`).
 * Breaks K4 (a grant raises the horizon): CNT-004; (iii): CNT-011.
 */
import { Effect } from "effect"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { knownBadContent } from "./kit.ts"

/** Raise-swallows-statement-failure known-bad variant. */
export const raiseSwallowsStatementFailure = knownBadContent({
  name: "raise-swallows-statement-failure",
  bug: "a failed horizon raise is swallowed as if it had raised, so the grant is signed while its transaction rolled back",
  breaks: ["CNT-004", "CNT-011"],
  pieces: {
    raiseGrant: (statements, bound, untilMs) =>
      Effect.gen(function*() {
        yield* hookPoint("content.beforeRaise")
        return yield* statements.sql.withTransaction(Effect.tap(
          statements.raise(bound.tenant, bound.hash, bound.size, untilMs).pipe(Effect.catchTag("SqlError", () => Effect.succeed(untilMs))),
          () => hookPoint("content.afterRaise")
        ))
      })
  }
})
