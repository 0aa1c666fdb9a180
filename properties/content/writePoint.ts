/**
 * A race point where a racer holds its lock on a content row, needing no hook point of the store: the
 * storage boundary's point before COMMIT (`StorageBoundary.setTransactionPoints`), taken by the racer
 * only in a transaction that wrote `tenant_contents` (upstream's table, which every store keeps): an
 * `INSERT` or `UPDATE` of a row there holds that row's lock until the transaction ends, so the
 * sweep's delete of the row waits on it. Statements are seen through `effect/sql`'s statement
 * transformer (`harness/StatementWatch.ts`), which the store cannot skip.
 *
 * The same watch offers the point before the statement that follows the first such write in a
 * transaction (`WROTE_CONTENT_THEN_STATEMENT`): an upsert written as an insert that does nothing on
 * conflict and then an update holds no row lock between the two.
 *
 * A store that writes the row outside any transaction, or first registers its tenant in a transaction
 * of its own, is held only in the transaction that wrote the row, or not at all (then the race gives
 * no lock evidence, as for a raise without a lock).
 */
import type { SqlClient } from "effect/sql"
import type { ScriptedHooks } from "../../harness/HookPoints.ts"
import { type MarkedTransactions, markTransactions } from "../../harness/MarkedTransactions.ts"

/** The boundary point a racer reaches before committing a transaction that wrote a content row. */
export const WROTE_CONTENT_BEFORE_COMMIT = "storage.contentWriteThenCommit"

/**
 * The boundary point a racer reaches before the next statement of a transaction whose statement just
 * wrote (or tried to write) a content row: after an insert that did nothing on conflict and before the
 * update that raises the row, the transaction holds no lock on that row, and a sweep may delete it.
 */
export const WROTE_CONTENT_THEN_STATEMENT = "storage.contentWriteThenStatement"

/** Upstream's content table. */
const CONTENTS_TABLE = /\btenant_contents\b/i
/** A statement that writes rows (an upsert starts with `INSERT`). */
const WRITES_ROWS = /^\s*(insert|update)\b/i

/** A watch over the racer labelled `racerLabel` on a client with `transactionService`, reaching the point through `hooks`. */
export const makeRowWriteWatch = (hooks: ScriptedHooks, racerLabel: string, transactionService: SqlClient.SqlClient["transactionService"]): MarkedTransactions =>
  markTransactions({
    hooks,
    label: racerLabel,
    transactionService,
    // `text` is read only after `inTransaction`: reading it compiles the statement.
    marks: (statement) => statement.inTransaction && WRITES_ROWS.test(statement.text) && CONTENTS_TABLE.test(statement.text),
    beforeCommitPoint: WROTE_CONTENT_BEFORE_COMMIT,
    afterMarkPoint: WROTE_CONTENT_THEN_STATEMENT
  })

/**
 * The boundary point a racer reaches before it begins a write (a transaction, or one auto-committed
 * statement) after it read a content row outside any transaction: between the two, nothing holds the
 * row, and a sweep may delete it.
 */
export const READ_CONTENT_THEN_WRITE = "storage.contentReadThenWrite"

/** A statement that reads rows. */
const READS_ROWS = /^\s*select\b/i

/** A watch over the racer labelled `racerLabel` that reaches `READ_CONTENT_THEN_WRITE` (see its doc). */
export const makeReadThenWriteWatch = (hooks: ScriptedHooks, racerLabel: string, transactionService: SqlClient.SqlClient["transactionService"]): MarkedTransactions =>
  markTransactions({
    hooks,
    label: racerLabel,
    transactionService,
    // `text` is read only after `inTransaction`: reading it compiles the statement.
    marks: (statement) => !statement.inTransaction && READS_ROWS.test(statement.text) && CONTENTS_TABLE.test(statement.text),
    beforeBeginPoint: READ_CONTENT_THEN_WRITE
  })
