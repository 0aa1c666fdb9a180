/**
 * Race points placed by what an operation's statements did, needing no hook point of the
 * implementation: the storage boundary's own points around each outermost transaction
 * (`StorageBoundary.setTransactionPoints`), reached only in a transaction a watched statement
 * (`StatementWatch.ts`) marked. A marking statement inside a transaction marks that transaction; one
 * outside marks the next transaction the operation begins (e.g. content's sweep: its reference scan,
 * then the delete's transaction). Only the operation carrying `label` (`HookPoints.OperationLabel`)
 * is marked or paused, so other operations on the same boundary pass through. A write outside any
 * transaction (one auto-committed statement, as upstream's sweep deletes) is a transaction to the
 * boundary (`AutoCommittedWrites.ts`): it reaches the before-begin point, and has no before-commit point.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { OperationLabel, type ScriptedHooks } from "./HookPoints.ts"
import { type SeenStatement, watchStatements } from "./StatementWatch.ts"
import type { TransactionPoints } from "./StorageBoundary.ts"

/** What marks a transaction, and the points a marked one reaches. */
export interface MarkOptions {
  /** Scripted hooks the points are reached through. */
  readonly hooks: ScriptedHooks
  /** The `OperationLabel` of the operation watched. */
  readonly label: string
  /** The `transactionService` of the client the operation runs on. */
  readonly transactionService: SqlClient.SqlClient["transactionService"]
  /** Whether `statement` marks its transaction (or, outside one, the next). Test `inTransaction` first: reading `text` compiles the statement. */
  readonly marks: (statement: SeenStatement) => boolean
  /** The point a marked transaction reaches before it begins, if any. */
  readonly beforeBeginPoint?: string
  /** The point a marked transaction reaches before it commits, if any. */
  readonly beforeCommitPoint?: string
  /**
   * The point a transaction reaches before the first statement it runs after its first marking
   * statement, if any: between two statements of one transaction (e.g. an insert that did nothing
   * and the update after it), where a lock-free gap may open.
   */
  readonly afterMarkPoint?: string
  /**
   * The point a transaction reaches right before its first marking statement runs, if any: inside the
   * open transaction, after what it ran before (e.g. its reads) and before the statement (e.g. its first
   * row write). Once per transaction when `points` are set on the boundary; without them, once for all
   * the watch sees.
   */
  readonly beforeMarkPoint?: string
}

/** An operation watched for marking statements, and the boundary points to set for it. */
export interface MarkedTransactions {
  /** `operation` with its statements watched. */
  readonly watched: <A, E, R>(operation: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The points to set on the boundary the operation runs over. */
  readonly points: TransactionPoints
}

/**
 * A watch that reaches `beforeBeginPoint`, `beforeMarkPoint`, `afterMarkPoint` and `beforeCommitPoint` in each transaction of the labelled
 * operation that a statement marked (see the module doc). A transaction that ended without committing
 * leaves no mark behind: each begins with only the marks made since the last one began.
 *
 * @example markTransactions({ hooks, label: "racer", transactionService, marks: (s) => s.inTransaction && /^insert/i.test(s.text), beforeCommitPoint: "storage.wroteThenCommit" })
 */
export const markTransactions = (options: MarkOptions): MarkedTransactions => {
  const { hooks, label, marks, beforeBeginPoint, beforeCommitPoint, afterMarkPoint, beforeMarkPoint } = options
  let markedForNext = false
  let markedCurrent = false
  // The current transaction's first marking statement ran; the next statement reaches `afterMarkPoint`.
  let afterMarkDue = false
  let afterMarkReached = false
  let beforeMarkReached = false
  const reach = (point: string | undefined) => (point === undefined ? Effect.void : hooks.service.at(point))
  const seen = (statement: SeenStatement): Effect.Effect<void> | undefined => {
    if (afterMarkDue && statement.inTransaction) {
      afterMarkDue = false
      afterMarkReached = true
      return pointOf(afterMarkPoint)
    }
    if (!marks(statement)) return undefined
    if (!statement.inTransaction) {
      markedForNext = true
      return undefined
    }
    markedCurrent = true
    if (afterMarkPoint !== undefined && !afterMarkReached) afterMarkDue = true
    if (beforeMarkPoint === undefined || beforeMarkReached) return undefined
    beforeMarkReached = true
    return pointOf(beforeMarkPoint)
  }
  const pointOf = (point: string | undefined) => Effect.flatMap(Effect.service(OperationLabel), (current) => (current === label ? reach(point) : Effect.void))
  const beforeBegin = Effect.flatMap(Effect.service(OperationLabel), (current) => {
    if (current !== label) return Effect.void
    markedCurrent = markedForNext
    markedForNext = false
    afterMarkDue = false
    afterMarkReached = false
    beforeMarkReached = false
    return markedCurrent ? reach(beforeBeginPoint) : Effect.void
  })
  const beforeCommit = Effect.flatMap(Effect.service(OperationLabel), (current) => {
    if (current !== label) return Effect.void
    afterMarkDue = false
    if (!markedCurrent) return Effect.void
    markedCurrent = false
    return reach(beforeCommitPoint)
  })
  return { watched: (operation) => watchStatements(operation, options.transactionService, seen), points: { beforeBegin, beforeCommit } }
}
