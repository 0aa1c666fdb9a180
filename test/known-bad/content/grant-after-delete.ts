/**
 * Real bug: grant reads the row, then raises the horizon without checking that the raise found the row,
 * so it signs a grant for content a concurrent detach-and-sweep deleted in between.
 *
 * Breaks (iii) (CNT-011), and (ii) when the grant is then attached (CNT-010).
 */
import { Effect } from "effect"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { knownBadContent } from "./kit.ts"

/** Grant trusts a read made before the raise. */
export const grantAfterDelete = knownBadContent({
  name: "grant-after-delete",
  bug: "grant reads the row, then raises without checking the raise found it: it signs for deleted content",
  breaks: ["CNT-011", "CNT-010"],
  pieces: {
    raiseGrant: (statements, bound, untilMs) =>
      Effect.gen(function*() {
        const seen = yield* statements.horizonOf(bound.tenant, bound.hash, bound.size)
        yield* hookPoint("content.beforeRaise")
        if (seen === undefined) return undefined
        yield* statements.sql.withTransaction(Effect.tap(statements.raise(bound.tenant, bound.hash, bound.size, untilMs), () => hookPoint("content.afterRaise")))
        return Math.max(seen, untilMs)
      })
  }
})
