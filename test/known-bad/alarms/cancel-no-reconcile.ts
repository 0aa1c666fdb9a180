/**
 * A transaction that only cancels does not reconcile: the platform alarm keeps pointing at cancelled work.
 *
 * Breaks R6 (every committed transaction leaves the platform alarm at the smallest wake_at, or absent):
 * ALM-006 and ALM-042.
 */
import { Effect } from "effect"
import { smallestWakeReconcile } from "../../../subjects/alarms/pieces.ts"
import { knownBadAlarm } from "./kit.ts"

/** Cancel-without-reconcile known-bad variant. */
export const cancelNoReconcile = knownBadAlarm({
  name: "cancel-no-reconcile",
  bug: "the platform alarm is not reconciled after a transaction that only cancels",
  breaks: ["ALM-006", "ALM-042"],
  pieces: {
    reconcile: (runtime, mutations) =>
      mutations.length > 0 && mutations.every((kind) => kind === "cancel") ? Effect.void : smallestWakeReconcile(runtime)
  }
})
