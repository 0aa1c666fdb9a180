/**
 * Race points around a sweep's reference scan and delete that need no hook point of the store: the storage boundary's own points around each outermost transaction
 * (`StorageBoundary.setTransactionPoints`), taken by the sweep only after it read `actor_content_refs`
 * (upstream's table, which every store keeps). The statements are seen through `effect/sql`'s statement
 * transformer, which every statement runs before it takes a connection, so the store cannot skip
 * either.
 *
 * - `SCANNED_BEFORE_TRANSACTION`: the sweep is about to begin a transaction and has scanned since its
 *   last one began: between a batch's scan and its delete.
 * - `SCANNED_BEFORE_COMMIT`: that transaction's body ran and it is about to commit: the delete (if it
 *   is the delete) holds its row locks.
 *
 * A scan is a statement outside any transaction that starts with `SELECT` (or `WITH`) and names the
 * references table: the delete's own re-check (a `DELETE ... NOT EXISTS (SELECT ... actor_content_refs)`)
 * writes, so it is no scan, and a store that scans inside its delete's transaction offers no point (the
 * racer then runs after the sweep). The n-th scan is the n-th candidate batch's (K6 scans once per
 * batch), which tells the model where the racer landed (`atBatch`).
 */
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { ScriptedHooks } from "../../harness/HookPoints.ts"
import { markTransactions } from "../../harness/MarkedTransactions.ts"
import type { SeenStatement } from "../../harness/StatementWatch.ts"
import type { TransactionPoints } from "../../harness/StorageBoundary.ts"

/** The boundary point a sweep reaches before a transaction that follows a reference scan. */
export const SCANNED_BEFORE_TRANSACTION = "storage.referenceScanThenTransaction"
/** The boundary point a sweep reaches before committing the transaction that followed a reference scan. */
export const SCANNED_BEFORE_COMMIT = "storage.referenceScanThenCommit"

/** Where a race pauses the sweep after a reference scan: the store's hook point first, else the boundary's. */
export const AFTER_SCAN_POINTS: ReadonlyArray<string> = ["content.afterReferenceScan", SCANNED_BEFORE_TRANSACTION]
/** Where a race holds the sweep's delete before it commits: the store's hook point first, else the boundary's. */
export const BEFORE_DELETE_COMMIT_POINTS: ReadonlyArray<string> = ["content.afterDelete", SCANNED_BEFORE_COMMIT]

/** Upstream's references table. */
const REFERENCES_TABLE = /\bactor_content_refs\b/i
/** A statement that only reads. */
const READ_ONLY = /^\s*(select|with)\b/i

/** Watches one race's sweep and offers the boundary points (see the module doc). */
export interface ScanWatch {
  /** `sweep` with its statements watched. */
  readonly watched: <A, E, R>(sweep: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The points to set on the boundary the sweep runs over. */
  readonly points: TransactionPoints
  /** Reference scans the sweep ran so far. */
  readonly scans: () => number
}

/** A watch over the sweep labelled `sweepLabel` on a client with `transactionService`, reaching the points through `hooks`. */
export const makeScanWatch = (hooks: ScriptedHooks, sweepLabel: string, transactionService: SqlClient.SqlClient["transactionService"]): ScanWatch => {
  let scans = 0
  // `text` is read only after `inTransaction`: reading it compiles the statement.
  const isScan = (statement: SeenStatement) => !statement.inTransaction && READ_ONLY.test(statement.text) && REFERENCES_TABLE.test(statement.text)
  const countedScan = (statement: SeenStatement) => {
    if (!isScan(statement)) return false
    scans++
    return true
  }
  const marked = markTransactions({
    hooks,
    label: sweepLabel,
    transactionService,
    marks: countedScan,
    beforeBeginPoint: SCANNED_BEFORE_TRANSACTION,
    beforeCommitPoint: SCANNED_BEFORE_COMMIT
  })
  return { ...marked, scans: () => scans }
}
