/**
 * A port of upstream's auto-committed sweep delete (seed 001: one statement on Postgres) to a backend
 * without data-modifying CTEs, as two auto-committed statements and no transaction: the rows, then their
 * chunks. A crash, a lost reply or a failed statement between them leaves chunks without a row. No
 * statement runs inside a transaction, so only a storage boundary that faults writes outside
 * transactions (`harness/AutoCommittedWrites.ts`) can strike between them.
 *
 * Breaks "content and chunks go together" (CNT-013).
 */
import { Effect } from "effect"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { knownBadContent } from "./kit.ts"

/** Rows, then chunks, each one auto-committed statement. */
export const deletesWithoutTransaction = knownBadContent({
  name: "deletes-without-transaction",
  bug: "the sweep deletes content rows and then their chunks as two auto-committed statements, outside any transaction",
  breaks: ["CNT-013"],
  pieces: {
    deleteUnreferenced: (statements, tenant, hashes, recheckBeforeMs) =>
      Effect.gen(function*() {
        const gone = yield* statements.deleteRows(tenant, hashes, recheckBeforeMs)
        yield* statements.deleteChunks(tenant, gone)
        yield* hookPoint("content.afterDelete")
        return gone.length
      })
  }
})
