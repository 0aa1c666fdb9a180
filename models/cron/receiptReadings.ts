/**
 * The two readings of a receipt the rules allow. The Rows section says a redelivery of the same command
 * id replays the receipt, and I2 that each instant is delivered at most once: a receipt keyed by the
 * command id alone. B1 (retarget double-fire) presumes the other keying: a changed command under an id
 * that already has a receipt runs again, which is why N7 checks for a receipt before delivering a
 * retargeted tick. The two differ only when a tick's delivery finds a receipt of its id for another
 * command: two runners that declare different commands for one entry (a deploy in progress), the first
 * delivering the retargeted command, the second, after the first's lease passed, the row's own. The
 * shipped relay keys by id and command (the canonical prediction); an implementation keyed by id alone
 * replays there, and the step is judged by whichever reading the observation agrees with
 * (`harness/Alternatives.ts`).
 */
import type { CronModelState, CronOperation, InFlightTick } from "./state.ts"

/** The runners whose first claimed tick `operation` may deliver. */
const deliveringRunners = (operation: CronOperation): ReadonlyArray<number> =>
  operation.kind === "settle" ? [operation.runner] : operation.kind === "race" ? operation.ops.filter((op) => op.kind === "settle").map((op) => op.runner) : []

/** Whether delivering `tick` now could meet a receipt of its id: one is stored, or another runner of the step delivers the same id. */
const mayMeetReceipt = (state: CronModelState, tick: InFlightTick, others: ReadonlyArray<InFlightTick>): boolean =>
  state.receipts.some((receipt) => receipt.actorId === tick.actorId && receipt.commandId === tick.intentId) ||
  others.some((other) => other !== tick && other.actorId === tick.actorId && other.intentId === tick.intentId)

/**
 * `operation` first (the canonical reading), then the same operation with receipts keyed by id alone
 * when a delivery of the step could meet a receipt of its id; otherwise `operation` alone.
 *
 * @example firstConsistent(receiptReadings(model, operation), judge)
 */
export const receiptReadings = (state: CronModelState, operation: CronOperation): ReadonlyArray<CronOperation> => {
  if (operation.kind !== "settle" && operation.kind !== "race") return [operation]
  const delivering = deliveringRunners(operation)
    .map((runner) => state.runners[runner]?.inFlight[0])
    .filter((tick): tick is InFlightTick => tick !== undefined && tick.phase === "deliver")
  return delivering.some((tick) => mayMeetReceipt(state, tick, delivering)) ? [operation, { ...operation, receiptsKeyedById: true }] : [operation]
}
