/**
 * The pool model's named situations: the rows of the pool coverage table (`harness/Coverage.ts`).
 *
 * A verdict says what held in the scenarios that ran; these names say what the scenarios exercised,
 * finer than the requirements a step credits (`properties/pool/coverage.ts` reads the same facts: a
 * checkout newly granted, queued, refused, failed or delivered to). Each is decided from the model
 * alone (the state before, the operation and the state after), never from the implementation, so the
 * table means the same for every implementation bound to the subject. A situation that no scenario
 * reaches shows in the table as 0: that is a gap in generation, not in the implementation.
 *
 * @example
 * ```ts
 * const after = poolModel.step(before, operation).state
 * poolSituations(before, operation, after) // ["queuedAtGate"]
 * ```
 */
import type { PoolOperation } from "./operations.ts"
import { admissionBound, admitted, type ModelOp, type PoolModelState, RETRY_CAP_MS, retryDelayMs } from "./state.ts"

/** Every situation, in the order the coverage table lists them. */
export const POOL_SITUATIONS = [
  // P1-P3 admission, then the gate, then the driver: a checkout granted a free slot at once; one queued
  // at the gate (every connection held: only the gate keeps it waiting, never the driver); the step
  // that filled admission to maxConnections + 64; a checkout refused there without the retry helper
  "grantedAtOnce",
  "queuedAtGate",
  "admissionFilledToBound",
  "refusedAtBound",
  // P2 fair gate: a freed slot handed to the oldest waiter; a fiber releasing and checking out again
  // while others wait (it must queue behind them); a waiter interrupted as its slot is handed over,
  // and the slot it passes on reaching the next waiter
  "handoverToOldestWaiter",
  "recheckoutBehindWaiters",
  "waiterInterruptedAtHandover",
  "handoverSlotPassedOn",
  // P4 slots belong to the checkout's scope: interrupted while waiting, between the retry helper's
  // attempts, while holding, with its statement at the server, with its COMMIT at the server; a
  // statement inside a holding transaction (no slot); a flood interrupted; the closing leak probe
  // after interruptions
  "waiterInterrupted",
  "retrierInterrupted",
  "holderInterrupted",
  "interruptedMidStatement",
  "interruptedMidCommit",
  "statementInsideTransaction",
  "floodDrained",
  "probeAfterInterruptions",
  // P5 a transaction committed; an aborted one whose COMMIT is answered with ROLLBACK (it must fail),
  // also with that COMMIT at the server when its caller is interrupted
  "transactionCommitted",
  "abortedCommitFails",
  "interruptedMidAbortedCommit",
  // P6 a notify delivered to a holding listener; one called inside a holding transaction (its own
  // checkout, outside it); one on a channel over 63 UTF-8 bytes (rejected, nothing sent)
  "notifyDelivered",
  "notifyInsideTransaction",
  "notifyLongChannelRejected",
  // P7 the retry helper: a refusal retried; refused again (the delay doubles); refused with the delay
  // at its 250 ms cap; admitted on a retry; a retried checkout whose statement failed, or whose
  // statement or COMMIT was at the server when interrupted (neither may be sent again)
  "refusalRetried",
  "retryRefusedAgain",
  "retryDelayCapped",
  "retryAdmitted",
  "failedStatementNotRetried",
  "retriedCheckoutInterruptedInFlight"
] as const

/** One pool situation. */
export type PoolSituation = typeof POOL_SITUATIONS[number]

/** One checkout the step started or changed: its record before (undefined when it started now) and after. */
interface CheckoutChange {
  readonly was: ModelOp | undefined
  readonly now: ModelOp
}

/** Every checkout whose record the step created or changed, in start order. */
const changesOf = (before: PoolModelState, after: PoolModelState): ReadonlyArray<CheckoutChange> =>
  after.order.flatMap((id) => {
    const was = before.ops[id]
    const now = after.ops[id]!
    return was === now ? [] : [{ was, now }]
  })

/** Whether the checkout got its gate slot in this step, by `how`. */
const grantedNow = (change: CheckoutChange, how: ModelOp["grantedBy"]): boolean =>
  change.now.grantedBy === how && (change.was?.grantedBy ?? "none") === "none"

/** P1-P3: how started or waiting checkouts went through admission and the gate. */
const gateSituations = (before: PoolModelState, after: PoolModelState, changes: ReadonlyArray<CheckoutChange>): Array<PoolSituation> => {
  const found: Array<PoolSituation> = []
  if (changes.some((change) => grantedNow(change, "free"))) found.push("grantedAtOnce")
  if (after.waiters.some((id) => !before.waiters.includes(id))) found.push("queuedAtGate")
  if (admitted(before) < admissionBound(before) && admitted(after) === admissionBound(after)) found.push("admissionFilledToBound")
  if (changes.some((change) => change.now.failure === "refusal" && change.was?.failure !== "refusal")) found.push("refusedAtBound")
  if (changes.some((change) => grantedNow(change, "handover"))) found.push("handoverToOldestWaiter")
  if (changes.some((change) => grantedNow(change, "passedOn"))) found.push("handoverSlotPassedOn")
  return found
}

/** P4-P7: what checkouts' ends, deliveries and the retry helper's timers did in this step. */
const checkoutSituations = (changes: ReadonlyArray<CheckoutChange>): Array<PoolSituation> => {
  const found = new Set<PoolSituation>()
  if (changes.some((change) => change.now.received.length > (change.was?.received.length ?? 0))) found.add("notifyDelivered")
  for (const { was, now } of changes) {
    const isTransaction = now.spec.kind === "transaction" && now.spec.inside === null
    if (isTransaction && now.status === "succeeded" && was?.status === "holding") found.add("transactionCommitted")
    if (isTransaction && now.spec.failing && now.status === "failed" && was?.status !== "failed") found.add("abortedCommitFails")
    const refused = now.refusals > (was?.refusals ?? 0)
    if (refused && now.spec.retry) {
      found.add("refusalRetried")
      if (now.refusals >= 2) found.add("retryRefusedAgain")
      if (retryDelayMs(now.refusals) === RETRY_CAP_MS) found.add("retryDelayCapped")
    }
    const retrying = was !== undefined && was.status === "pending" && was.retryAtMs !== null
    if (retrying && now.status === "interrupted") found.add("retrierInterrupted")
    if (retrying && now.retryAtMs === null && now.status !== "interrupted") found.add("retryAdmitted")
    if (now.spec.retry && now.failure === "error" && was?.failure !== "error") found.add("failedStatementNotRetried")
  }
  return [...found]
}

/** P2, P4, P5, P6, P7: what the operation itself was (which phase an interrupt struck, where a checkout ran). */
const operationSituations = (before: PoolModelState, operation: PoolOperation): Array<PoolSituation> => {
  switch (operation.op) {
    case "start": {
      const spec = operation.spec
      if (spec.kind === "borrow") return spec.inside === null ? [] : ["statementInsideTransaction"]
      if (spec.kind !== "notify") return []
      return [...(spec.inside === null ? [] : ["notifyInsideTransaction" as const]), ...(spec.longChannel ? ["notifyLongChannelRejected" as const] : [])]
    }
    case "interruptStatement":
      return operation.spec.retry ? ["interruptedMidStatement", "retriedCheckoutInterruptedInFlight"] : ["interruptedMidStatement"]
    case "interruptCommit": {
      const spec = before.ops[operation.id]!.spec
      const phase: PoolSituation = spec.failing ? "interruptedMidAbortedCommit" : "interruptedMidCommit"
      return spec.retry ? [phase, "retriedCheckoutInterruptedInFlight"] : [phase]
    }
    case "release":
      return operation.reborrow !== null && before.waiters.length > 0 ? ["recheckoutBehindWaiters"] : []
    case "interrupt":
      // A retrier between refusals is read from its record (the closing probe interrupts retriers too).
      if (before.waiters.includes(operation.id)) return ["waiterInterrupted"]
      return before.holders.includes(operation.id) ? ["holderInterrupted"] : []
    case "handoverInterrupt":
      return ["waiterInterruptedAtHandover"]
    case "drain":
      return ["floodDrained"]
    case "probe":
      return before.interruptions > 0 ? ["probeAfterInterruptions"] : []
    case "flood":
    case "advance":
      return []
  }
}

/**
 * The situations one model step reached, in `POOL_SITUATIONS` order: `before` is the state the step
 * started from, `after` the state the model's step of `operation` returned.
 */
export const poolSituations = (before: PoolModelState, operation: PoolOperation, after: PoolModelState): ReadonlyArray<PoolSituation> => {
  const changes = changesOf(before, after)
  const found = new Set<PoolSituation>([...gateSituations(before, after, changes), ...checkoutSituations(changes), ...operationSituations(before, operation)])
  return POOL_SITUATIONS.filter((situation) => found.has(situation))
}
