/**
 * A race point between a sweep's reference scan and its delete that needs no hook point of the store:
 * the storage boundary's own point before each outermost transaction (`StorageBoundary.setTransactionPoint`),
 * taken only when the sweep read `actor_content_refs` (upstream's table, which every store keeps) since
 * its last transaction began. The statements are seen through `effect/sql`'s statement transformer,
 * which every statement runs before it takes a connection, so the store cannot skip either.
 *
 * A scan is a statement outside any transaction that starts with `SELECT` (or `WITH`) and names the
 * references table: the delete's own re-check (a `DELETE ... NOT EXISTS (SELECT ... actor_content_refs)`)
 * writes, so it is no scan, and a store that scans inside its delete's transaction offers no point (the
 * racer then runs after the sweep). The n-th scan is the n-th candidate batch's (K6 scans once per
 * batch), which tells the model where the racer landed (`atBatch`).
 */
import { Context, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import * as Statement from "effect/sql/Statement"
import { OperationLabel, type ScriptedHooks } from "../../harness/HookPoints.ts"
import { withStatementFaults } from "../../harness/StatementFault.ts"

/** The boundary point a sweep reaches before a transaction that follows a reference scan. */
export const SCANNED_BEFORE_TRANSACTION = "storage.referenceScanThenTransaction"

/** Upstream's references table. */
const REFERENCES_TABLE = /\bactor_content_refs\b/i
/** A statement that only reads. */
const READ_ONLY = /^\s*(select|with)\b/i

/** Watches one sweep's statements and offers the boundary point (see the module doc). */
export interface ScanWatch {
  /** `sweep` with its statements watched. */
  readonly watched: <A, E, R>(sweep: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The boundary's transaction point: reaches `SCANNED_BEFORE_TRANSACTION` when the sweep scanned since its last transaction. */
  readonly point: Effect.Effect<void>
  /** Reference scans the sweep ran so far. */
  readonly scans: () => number
}

/** A scan watch over the sweep labelled `sweepLabel` on a client with `transactionService`, reaching the point through `hooks`. */
export const makeScanWatch = (hooks: ScriptedHooks, sweepLabel: string, transactionService: SqlClient.SqlClient["transactionService"]): ScanWatch => {
  let scans = 0
  let scannedSinceTransaction = false
  const transformer = (outer: Statement.Transformer | undefined): Statement.Transformer => (statement, sql, fiber, span) => {
    const [text] = statement.compile()
    const outside = Context.getOrUndefined(fiber.context, transactionService) === undefined
    if (outside && READ_ONLY.test(text) && REFERENCES_TABLE.test(text)) {
      scans++
      scannedSinceTransaction = true
    }
    return outer === undefined ? Effect.succeed(statement) : outer(statement, sql, fiber, span)
  }
  const point = Effect.flatMap(Effect.service(OperationLabel), (label) => {
    if (label !== sweepLabel || !scannedSinceTransaction) return Effect.void
    scannedSinceTransaction = false
    return hooks.service.at(SCANNED_BEFORE_TRANSACTION)
  })
  return { watched: (sweep) => withStatementFaults(sweep, transformer), point, scans: () => scans }
}
