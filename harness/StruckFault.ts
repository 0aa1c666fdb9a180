/**
 * The fault an operation really met, from what the storage boundary saw, for a model that is told
 * which fault struck (it cannot know how many transactions or statements an implementation runs):
 * none when the operation ran fewer transactions (for a failed read: fewer reads outside a transaction); for a failed statement, a refused commit when the
 * transaction ran fewer statements, and none when its body failed on its own first (the fault never
 * struck, and the body's own error stands) or went on past the failed statement and committed
 * (SQLite's meaning: the transaction stayed open, so the call is judged as if the statement had not
 * failed; an implementation that recovered commits what the rules say, one that ignored the failure
 * does not).
 */
import { describeStorageFault, type StorageFault } from "./Faults.ts"
import type { StorageBoundary } from "./StorageBoundary.ts"

/** What a failed statement the call went on past and committed (SQLite's meaning) means for its judgement. */
export const RECOVERED_STATEMENT_WORDS = "the transaction stayed open (SQLite's meaning) and the call went on past it and committed, so it is judged as if the statement had not failed"

/** How an armed fault met the operation the boundary just ran: the fault that struck, and in words. */
export interface FaultAsStruck {
  /** The fault the model is told (undefined: none struck). */
  readonly struck: StorageFault | undefined
  /** The drawn fault in plain words, saying how it struck; a counterexample step's `fault`. */
  readonly words: string
  /** The named statement failed, and the call went on past it and committed (SQLite's meaning): judge it unfaulted. */
  readonly recovered?: true
}

/**
 * The armed `fault` as it struck the operation `boundary` just ran; `label` names the operation.
 *
 * @example faultAsStruck({ transaction: 1, phase: "statementFails", statement: 9 }, boundary, "grant")
 * // after a 3-statement transaction: { struck: { transaction: 1, phase: "commitRefused" },
 * //   words: "statement 9 of storage transaction 1 (grant) fails ...: it ran fewer statements, so its COMMIT was refused" }
 */
export const faultAsStruck = (fault: StorageFault, boundary: StorageBoundary, label: string): FaultAsStruck => {
  if (fault.phase === "readFails") {
    const failed = boundary.readsOutside().failed
    return { struck: failed ? fault : undefined, words: describeStorageFault(fault, label, failed) }
  }
  const reached = boundary.transactionsStarted() >= fault.transaction
  const words = describeStorageFault(fault, label, reached)
  if (!reached) return { struck: undefined, words }
  if (fault.phase !== "statementFails") return { struck: fault, words }
  switch (boundary.statementFaultOutcome()) {
    case "statementFailed":
      return { struck: fault, words }
    case "commitRefusedInstead":
      return { struck: { transaction: fault.transaction, phase: "commitRefused" }, words: `${words}: it ran fewer statements, so its COMMIT was refused` }
    case "statementFailedThenCommitted":
      return { struck: undefined, words: `${words}: ${RECOVERED_STATEMENT_WORDS}`, recovered: true }
    case "bodyFailedFirst":
      return { struck: undefined, words: `${words}: not struck, the transaction failed on its own first` }
    case null:
      return { struck: undefined, words }
  }
}

/**
 * The armed `fault` as it struck the operation `boundary` just ran, or undefined when it did not.
 *
 * @example struckFault({ transaction: 1, phase: "statementFails", statement: 9 }, boundary) // { transaction: 1, phase: "commitRefused" } after a 3-statement transaction
 */
export const struckFault = (fault: StorageFault | undefined, boundary: StorageBoundary): StorageFault | undefined =>
  fault === undefined ? undefined : faultAsStruck(fault, boundary, "").struck

/**
 * The armed `fault` in words, saying how it struck the operation `boundary` just ran; `label` names
 * the operation.
 *
 * @example struckFaultWords({ transaction: 1, phase: "statementFails", statement: 9 }, boundary, "grant")
 * // "statement 9 of storage transaction 1 (grant) fails ...: it ran fewer statements, so its COMMIT was refused"
 */
export const struckFaultWords = (fault: StorageFault, boundary: StorageBoundary, label: string): string => faultAsStruck(fault, boundary, label).words
