/**
 * The pool reference model as a `ReferenceModel`: admission, the FIFO gate, waiters, grants and the
 * retry helper's timers, for one pool of `maxConnections` connections (reference page `pool.md`).
 */
import type { ReferenceModel } from "../../harness/ReferenceModel.ts"
import { plainAcquire, plainBorrow, type PoolOperation } from "./operations.ts"
import { initialState, type PoolModelState } from "./state.ts"
import { advance, draftOf, freeSlot, interrupt, interruptCommitInFlight, interruptStatementInFlight, release, start } from "./step.ts"

/** What `init` takes. */
export interface PoolInit {
  readonly maxConnections: number
  readonly nowMs: number
}

/** What `step` returns: the next state (every prediction is in it). */
export interface PoolOutcome {
  readonly state: PoolModelState
}

/** What a checkout looks like from outside: its status, failure class and tagged statements sent. */
export interface ObservedOp {
  readonly status: string
  readonly failure: string | null
  readonly statements: number
}

const apply = (state: PoolModelState, operation: PoolOperation): PoolModelState => {
  const draft = draftOf(state)
  switch (operation.op) {
    case "start":
      start(draft, operation.spec)
      break
    case "interruptStatement":
      interruptStatementInFlight(draft, operation.spec)
      break
    case "interruptCommit":
      interruptCommitInFlight(draft, operation.id)
      break
    case "release":
      release(draft, operation.id)
      if (operation.reborrow !== null) start(draft, plainBorrow(operation.reborrow))
      break
    case "interrupt":
      interrupt(draft, operation.id)
      break
    case "handoverInterrupt": {
      // The holder's slot is handed to the head waiter, which is interrupted before it runs: it passes the slot on.
      const op = draft.ops[operation.holder]!
      const aborted = op.spec.kind === "transaction" && op.spec.failing
      draft.ops[operation.holder] = { ...op, ...(aborted ? { status: "failed", failure: "error" } : { status: "succeeded" }) }
      interrupt(draft, operation.waiter)
      draft.ops[operation.waiter] = { ...draft.ops[operation.waiter]!, raced: true }
      freeSlot(draft, operation.holder, "passedOn")
      break
    }
    case "flood":
      for (const id of operation.ids) start(draft, plainAcquire(id))
      break
    case "drain":
      for (const id of operation.ids) interrupt(draft, id)
      break
    case "advance":
      advance(draft, operation.toMs)
      break
    case "probe":
      for (const id of operation.interrupt) interrupt(draft, id)
      for (const id of operation.ids) start(draft, plainAcquire(id))
      break
  }
  const { grantedThisStep: _granted, ...next } = draft
  return next
}

const describeOperation = (operation: PoolOperation): string => {
  switch (operation.op) {
    case "start": {
      const spec = operation.spec
      const flags = [spec.retry ? "retried" : "", spec.failing ? "failing" : "", spec.longChannel ? "long channel" : "", spec.inside ? `inside ${spec.inside}` : "", spec.channelCheckedAtGrant === true ? "channel checked once granted" : ""]
      return `start ${spec.kind} ${spec.id}${flags.filter((flag) => flag !== "").map((flag) => ` (${flag})`).join("")}`
    }
    case "interruptStatement":
      return `start ${operation.spec.kind} ${operation.spec.id}, hold the server's reply to its statement, interrupt it, then let the reply through`
    case "interruptCommit":
      return `release ${operation.id}, hold the server's reply to its COMMIT, interrupt it, then let the reply through`
    case "release":
      return `release ${operation.id}${operation.reborrow === null ? "" : ` and borrow again as ${operation.reborrow}`}`
    case "interrupt":
      return `interrupt ${operation.id}`
    case "handoverInterrupt":
      return `release ${operation.holder} and interrupt ${operation.waiter} as its slot is handed over`
    case "flood":
      return `flood ${operation.ids.length} acquires`
    case "drain":
      return `interrupt ${operation.ids.length} flood checkouts`
    case "advance":
      return `advance virtual time to ${operation.toMs}`
    case "probe":
      return `interrupt ${operation.interrupt.length} live checkouts, then start ${operation.ids.length} probe acquires`
  }
}

/** Every checkout as observed from outside (status, failure, tagged statements), keyed by id. */
export const observableOps = (state: PoolModelState): Record<string, ObservedOp> =>
  Object.fromEntries(state.order.map((id) => {
    const op = state.ops[id]!
    return [id, { status: op.status, failure: op.failure, statements: op.statements }]
  }))

/** The pool model. */
export const poolModel: ReferenceModel<PoolModelState, PoolOperation, PoolOutcome, PoolInit, Record<string, ObservedOp>> = {
  name: "pool-model",
  description: "bounded FIFO pool of @rikalabs/akter boundedPool: admission (maxConnections + 64), FIFO gate, scoped slots, retry helper (pool.md P1-P7)",
  init: (options) => initialState(options?.maxConnections ?? 1, options?.nowMs ?? 0),
  step: (state, operation) => ({ state: apply(state, operation) }),
  describeOperation,
  describeState: (state) =>
    [
      `t=${state.nowMs} maxConnections=${state.maxConnections}`,
      `holders [${state.holders.join(", ")}] waiters [${state.waiters.join(", ")}]`
    ].join("\n"),
  observableState: observableOps
}
