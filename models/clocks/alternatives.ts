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
    case "advance":
    case "sweep":
    case "restart": {
      const orders = Math.min(orderCount(passLength(state)), MAX_ALTERNATIVES)
      return Array.from({ length: orders }, (_, passOrder) => (passOrder === 0 ? operation : { ...operation, passOrder }))
    }
    case "deferredResult": {
      const consumed = state.deferreds[keyOf(operation.command.exec, operation.command.deferred)]?.consumedAtMs != null
      return consumed && operation.command.fault !== undefined ? [operation, { ...operation, command: withoutStorageFault(operation.command) }] : [operation]
    }
    default:
      return [operation]
  }
}
