/**
 * The choices the reference leaves to the implementation that the model spells out: a step is
 * judged by the first alternative the observation agrees with (`harness/Alternatives.ts`), the
 * canonical one (the shipped engine's choice) first.
 *
 * - C13 fixes an effect's boundary records and their order around the effect, not the transaction
 *   they commit in: a transaction of the engine's around each (canonical), or the journal's own
 *   (C2: the durable channel writes in its own transaction when the caller has none). The two differ
 *   under faults only: which error a refused write surfaces as (`SqlError` or the journal's
 *   `unavailable`), and whether a failing emit started a storage transaction (the fault ordinals).
 * - C12 re-announces and arms every pending clock in no fixed order, and no rule orders the fires of
 *   the clocks due at one instant (C9, C10): ascending key order and the order of arming (canonical),
 *   or both reversed. They differ under faults only: which clock's transaction a fault strikes.
 *   Reversal spells out every order of two clocks; three or more due together get two of their orders.
 */
import type { Operation } from "./types.ts"

/** The operations the model predicts for `operation`, the canonical one first. */
export const operationAlternatives = (operation: Operation): ReadonlyArray<Operation> => {
  switch (operation.command.op) {
    case "effect":
      return [operation, { ...operation, effectRecordsInJournalTransactions: true }]
    case "advance":
    case "sweep":
    case "restart":
      return [operation, { ...operation, reversedOrder: true }]
    default:
      return [operation]
  }
}
