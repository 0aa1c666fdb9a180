/** A transaction that only cancels does not reconcile: the platform alarm keeps pointing at cancelled work. */
import { Effect } from "effect"
import { smallestWakeReconcile } from "../../../subjects/alarms/pieces.ts"
import { swapOnePiece } from "./variant.ts"

/** Cancel-without-reconcile known-bad variant. */
export const cancelNoReconcile = swapOnePiece(
  {
    id: "cancel-no-reconcile",
    bug: "the platform alarm is not reconciled after a transaction that only cancels",
    rules: ["R6", "R19"],
    piece: "reconcile"
  },
  (runtime, mutations) =>
    mutations.length > 0 && mutations.every((kind) => kind === "cancel") ? Effect.void : smallestWakeReconcile(runtime)
)
