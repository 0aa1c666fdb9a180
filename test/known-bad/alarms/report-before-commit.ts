/** Park reports are delivered inside the transaction, before commit: a rolled-back park is reported. */
import { Effect } from "effect"
import { swapOnePiece } from "./variant.ts"

/** Report-before-commit known-bad variant. */
export const reportBeforeCommit = swapOnePiece(
  {
    id: "report-before-commit",
    bug: "park reports are sent before commit, so a park that rolls back is still reported",
    rules: ["R4", "R27"],
    piece: "commitThenReport"
  },
  (steps) =>
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
)
