/**
 * How a sweep ran its writes, seen through `effect/sql`'s statement transformer with no cooperation of
 * the store: whether its tenant claim (an UPDATE of upstream's `tenant_content_sweeps`) and its deletes
 * (a DELETE from upstream's `tenant_contents`) ran inside a transaction of the store's, or each as one
 * auto-committed statement. K6 does not say, and upstream runs both as single auto-committed statements
 * (seed 001), while the shipped store wraps each in a transaction; the storage boundary counts, and
 * faults, only transactions, so the model numbers the sweep's transactions by what ran
 * (`models/content/sweep.ts`). Found by an independently written store (`examples/independent-content`).
 */
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SweepLayout } from "../../models/content/index.ts"
import { type SeenStatement, watchStatements } from "../../harness/StatementWatch.ts"

const CLAIM = /^\s*update\s+tenant_content_sweeps\b/i
const DELETE_CONTENT = /\bdelete\s+from\s+tenant_contents\b/i

/** A sweep watched for its layout, and what was seen once it ran. */
export interface SweepLayoutWatch {
  readonly watched: <A, E, R>(sweep: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Which writes ran auto-committed (both false for the shipped store's layout). */
  readonly layout: () => SweepLayout
}

/** A fresh watch over one sweep on a client whose transactions carry `transactionService`. */
export const makeSweepLayoutWatch = (transactionService: SqlClient.SqlClient["transactionService"]): SweepLayoutWatch => {
  let claim = false
  let deletes = false
  const seen = (statement: SeenStatement) => {
    if (statement.inTransaction) return
    if (CLAIM.test(statement.text)) claim = true
    else if (DELETE_CONTENT.test(statement.text)) deletes = true
  }
  return {
    watched: (sweep) => watchStatements(sweep, transactionService, seen),
    layout: () => ({ claimAutoCommitted: claim, deletesAutoCommitted: deletes })
  }
}
