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
 *   or any other (`passOrder.ts`). They differ under faults only: which clock's transaction a fault
 *   strikes. Every order of up to four clocks is spelled out (the scenarios have at most four: two
 *   executions of two clocks); one index orders every list of a step, so a step with two lists of
 *   several clocks (an advance over two instants) gets their orders in step, not every pair of them.
 *   A step gets as many orders as its longest possible list has (`passLength`): none beyond the
 *   canonical one when it has at most one clock to take.
 * - C7 has a read record a deferred's first consumption in one transaction and says later reads change
 *   nothing. A later read may run that transaction (canonical: upstream's, which changes nothing) or
 *   none at all; they differ under a storage fault only, which strikes the first and not the second.
 *   (Found by an independently written engine, `examples/independent-clocks`.)
 * - C12 orders a sweep's two passes (re-arm the pending clocks; wake the completions) not at all, and
 *   lets an implementation read again after a failed read. Under a failed read (`readFails`) the sweep
 *   fails after the clock pass (canonical) or after the wake pass, or runs whole.
 */
import { MAX_ALTERNATIVES, orderCount } from "../../harness/Alternatives.ts"
import { withoutStorageFault } from "../../harness/Faults.ts"
import { keyOf } from "./keys.ts"
import type { ModelState, Operation } from "./types.ts"

/**
 * The most items one pass of a step from `state` can take: a sweep takes the pending clocks, and one
 * instant's fires are armed timers (a failed fire re-arms its own clock, so no pass grows past both).
 */
const passLength = (state: ModelState): number =>
  Math.max(state.timers.length, Object.values(state.clocks).filter((clock) => clock.completedAtMs === null).length)

/** The operations the model predicts for `operation` from `state`, the canonical one first. */
export const operationAlternatives = (state: ModelState, operation: Operation): ReadonlyArray<Operation> => {
  switch (operation.command.op) {
    case "effect":
      return [operation, { ...operation, effectRecordsInJournalTransactions: true }]
    case "sweep":
    case "restart":
      if (operation.command.fault?.phase === "readFails") return failedReadAlternatives(operation)
      return passOrders(state, operation)
    case "advance":
    case "resultRace":
      return passOrders(state, operation)
    case "deferredResult": {
      const consumed = state.deferreds[keyOf(operation.command.exec, operation.command.deferred)]?.consumedAtMs != null
      return consumed && operation.command.fault !== undefined ? [operation, { ...operation, command: withoutStorageFault(operation.command) }] : [operation]
    }
    default:
      return [operation]
  }
}

/** Every order of the step's passes (`passOrder`), the canonical one first. */
const passOrders = (state: ModelState, operation: Operation): ReadonlyArray<Operation> => {
  const orders = Math.min(orderCount(passLength(state)), MAX_ALTERNATIVES)
  return Array.from({ length: orders }, (_, passOrder) => (passOrder === 0 ? operation : { ...operation, passOrder }))
}

/**
 * A sweep whose read fails: the failure after the clock pass or after the wake pass (C12 orders the
 * two not at all), or the whole sweep (an implementation that read again). The order within a pass
 * decides only which transaction a storage fault strikes, and a failed read strikes none.
 */
const failedReadAlternatives = (operation: Operation): ReadonlyArray<Operation> => [
  operation,
  { ...operation, sweepWakesFirst: true },
  { ...operation, command: withoutStorageFault(operation.command) }
]
