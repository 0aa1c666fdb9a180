/**
 * The fault an operation really met, from what the storage boundary saw, for a model that is told
 * which fault struck (it cannot know how many transactions or statements an implementation runs):
 * none when the operation ran fewer transactions; for a failed statement, a refused commit when the
 * transaction ran fewer statements, and none when its body failed on its own first (the fault never
 * struck, and the body's own error stands).
 */
import { describeStorageFault, type StorageFault } from "./Faults.ts"
import type { StorageBoundary } from "./StorageBoundary.ts"

/**
 * The armed `fault` as it struck the operation `boundary` just ran, or undefined when it did not.
 *
 * @example struckFault({ transaction: 1, phase: "statementFails", statement: 9 }, boundary) // { transaction: 1, phase: "commitRefused" } after a 3-statement transaction
 */
export const struckFault = (fault: StorageFault | undefined, boundary: StorageBoundary): StorageFault | undefined => {
  if (fault === undefined || boundary.transactionsStarted() < fault.transaction) return undefined
  if (fault.phase !== "statementFails") return fault
  switch (boundary.statementFaultOutcome()) {
    case "statementFailed":
      return fault
    case "commitRefusedInstead":
      return { transaction: fault.transaction, phase: "commitRefused" }
    default:
      return undefined
  }
}

/**
 * The armed `fault` in words, saying how it struck the operation `boundary` just ran; `label` names
 * the operation.
 *
 * @example struckFaultWords({ transaction: 1, phase: "statementFails", statement: 9 }, boundary, "grant")
 * // "statement 9 of storage transaction 1 (grant) fails ...: it ran fewer statements, so its COMMIT was refused"
 */
export const struckFaultWords = (fault: StorageFault, boundary: StorageBoundary, label: string): string => {
  const reached = boundary.transactionsStarted() >= fault.transaction
  const words = describeStorageFault(fault, label, reached)
  if (!reached || fault.phase !== "statementFails") return words
  switch (boundary.statementFaultOutcome()) {
    case "commitRefusedInstead":
      return `${words}: it ran fewer statements, so its COMMIT was refused`
    case "bodyFailedFirst":
      return `${words}: not struck, the transaction failed on its own first`
    default:
      return words
  }
}
