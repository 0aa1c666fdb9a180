/**
 * Real bug: the sweep deletes content rows in one statement and their chunks in a separate one (its own
 * autocommit statement, as upstream's sweep runs without a transaction), so a crash or a lost reply
 * between them leaves chunks without a row (readable bytes of deleted content).
 *
 * Breaks "content and chunks go together" (CNT-013).
 */
import { Effect } from "effect"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { knownBadContent } from "./kit.ts"

/** Rows and chunks deleted in two transactions. */
export const chunksSeparateStatement = knownBadContent({
  name: "chunks-separate-statement",
  bug: "content rows and their chunks are deleted by separate statements, the chunks after the rows committed",
  breaks: ["CNT-013"],
  pieces: {
    deleteUnreferenced: (statements, tenant, hashes, recheckBeforeMs) =>
      Effect.gen(function*() {
        const gone = yield* statements.sql.withTransaction(Effect.tap(statements.deleteRows(tenant, hashes, recheckBeforeMs), () => hookPoint("content.afterDelete")))
        yield* statements.deleteChunks(tenant, gone)
        return gone.length
      })
  }
})
