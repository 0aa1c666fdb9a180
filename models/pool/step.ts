/**
 * Transitions of the pool model: start a checkout (admission, gate), release or interrupt it, hand a
 * freed slot to the oldest waiter, and let the retry helper's timers fire as virtual time advances.
 * A mutable draft is used inside one step only; `step` returns a new state.
 */
import { admissionBound, type ModelOp, type OpSpec, type PoolModelState, retryDelayMs } from "./state.ts"

/** A mutable copy of the state for the duration of one step. */
interface Draft {
  maxConnections: number
  nowMs: number
  ops: Record<string, ModelOp>
  order: Array<string>
  holders: Array<string>
  waiters: Array<string>
  interruptions: number
  /** Checkouts granted in this step so far (a listener and a notify granted in one step race). */
  grantedThisStep: Array<string>
}

/** Bound on hand-overs in one step (each admitted checkout is handed a slot at most once). */
const MAX_HANDOVERS = 10_000

/** Copies the state into a draft. */
export const draftOf = (state: PoolModelState): Draft => ({
  ...state,
  grantedThisStep: [],
  ops: { ...state.ops },
  order: [...state.order],
  holders: [...state.holders],
  waiters: [...state.waiters]
})

const update = (draft: Draft, id: string, change: Partial<ModelOp>): void => {
  const op = draft.ops[id]
  if (op === undefined) throw new Error(`no checkout ${id}`)
  draft.ops[id] = { ...op, ...change }
}

/** Whether a checkout holds its slot until released (the others end on their own). */
export const holdsUntilReleased = (spec: OpSpec): boolean => spec.kind === "acquire" || spec.kind === "transaction" || spec.kind === "listen"

/** A checkout got its gate slot: it sends its statement and holds, or finishes and frees the slot. */
const grant = (draft: Draft, id: string, grantedBy: ModelOp["grantedBy"]): void => {
  const spec = draft.ops[id]!.spec
  // A long channel checked at the grant: rejected now, before anything is sent (P6).
  const rejected = spec.kind === "notify" && spec.longChannel
  const statements = spec.kind === "listen" || rejected ? 0 : 1
  update(draft, id, { grantedBy, statements: draft.ops[id]!.statements + statements, status: "holding" })
  draft.holders.push(id)
  draft.grantedThisStep.push(id)
  if (!holdsUntilReleased(spec)) {
    update(draft, id, spec.failing || rejected ? { status: "failed", failure: "error" } : { status: "succeeded" })
    if (spec.kind === "notify" && !rejected) deliver(draft, id)
    freeSlot(draft, id, "handover")
  }
}

/**
 * A notify committed: every listener holding its checkout now must receive its payload once, after the
 * ones it received before (P6: notify sends on a checkout of its own, so it commits at once). A
 * listener granted in the same step as the notify may have sent its LISTEN after the notify committed.
 */
const deliver = (draft: Draft, notifier: string): void => {
  const payload = `pool-op-${notifier}`
  for (const id of draft.holders) {
    const op = draft.ops[id]!
    if (op.spec.kind !== "listen" || op.status !== "holding") continue
    const sure = !draft.grantedThisStep.includes(id)
    update(draft, id, { received: [...op.received, { payload, sure }] })
  }
}

/**
 * Starts `spec`, granted at once, whose statement reaches the server while its reply is held; the
 * caller is interrupted then. The statement counts as sent (never to be sent again), and the slot
 * comes back (P4, I4, I5).
 */
export const interruptStatementInFlight = (draft: Draft, spec: OpSpec): void => {
  start(draft, { ...spec, retry: spec.retry })
  const op = draft.ops[spec.id]!
  if (!holdsUntilReleased(spec)) {
    // A borrowed statement ends at its grant in the plain model; here its reply never arrived.
    update(draft, spec.id, { status: "interrupted", failure: null, inFlight: "statement" })
    draft.interruptions += 1
    return
  }
  if (op.status !== "holding") throw new Error(`${spec.id} was not granted at once`)
  interrupt(draft, spec.id)
  update(draft, spec.id, { inFlight: "statement" })
}

/** Releases holding transaction `id`, interrupting it while its COMMIT is at the server (P4, P5). */
export const interruptCommitInFlight = (draft: Draft, id: string): void => {
  interrupt(draft, id)
  update(draft, id, { inFlight: "commit" })
}

/** `id` gives its slot back: the oldest waiter gets it (P2), never a free count. */
export const freeSlot = (draft: Draft, id: string, how: "handover" | "passedOn"): void => {
  const index = draft.holders.indexOf(id)
  if (index < 0) throw new Error(`${id} holds no slot`)
  draft.holders.splice(index, 1)
  const next = draft.waiters.shift()
  if (next !== undefined) grant(draft, next, how)
  if (draft.holders.length > draft.maxConnections) throw new Error("more holders than connections")
}

/** Admission then the gate (P1, P2): refused at the bound, granted when a slot is free and nobody waits. */
export const admit = (draft: Draft, id: string): void => {
  const op = draft.ops[id]!
  if (op.spec.retry) update(draft, id, { attemptsAtMs: [...op.attemptsAtMs, draft.nowMs] })
  if (draft.holders.length + draft.waiters.length >= admissionBound(draft)) {
    if (op.spec.retry) {
      const refusals = op.refusals + 1
      update(draft, id, { status: "pending", refusals, retryAtMs: draft.nowMs + retryDelayMs(refusals) })
    } else update(draft, id, { status: "failed", failure: "refusal", refusals: op.refusals + 1 })
    return
  }
  update(draft, id, { retryAtMs: null })
  if (draft.holders.length < draft.maxConnections && draft.waiters.length === 0) grant(draft, id, "free")
  else draft.waiters.push(id)
}

/** Starts a checkout described by `spec`. */
export const start = (draft: Draft, spec: OpSpec): void => {
  if (draft.ops[spec.id] !== undefined) throw new Error(`checkout ${spec.id} started twice`)
  draft.ops[spec.id] = {
    spec,
    status: "pending",
    failure: null,
    statements: 0,
    grantedBy: "none",
    refusals: 0,
    retryAtMs: null,
    attemptsAtMs: [],
    seq: draft.order.length,
    raced: false,
    inFlight: null,
    received: []
  }
  draft.order.push(spec.id)
  if (spec.kind === "notify" && spec.longChannel && spec.channelCheckedAtGrant !== true) {
    update(draft, spec.id, { status: "failed", failure: "error" })
    return
  }
  if (spec.kind === "borrow" && spec.inside !== null) {
    // A statement inside a transaction reuses its connection and takes no slot (P4).
    update(draft, spec.id, { status: spec.failing ? "failed" : "succeeded", failure: spec.failing ? "error" : null, statements: 1, grantedBy: "transaction" })
    return
  }
  admit(draft, spec.id)
}

/** Ends a holding checkout normally: a transaction commits (or its aborted COMMIT fails, P5). */
export const release = (draft: Draft, id: string): void => {
  const op = draft.ops[id]!
  if (op.status !== "holding") throw new Error(`${id} is not holding`)
  const aborted = op.spec.kind === "transaction" && op.spec.failing
  update(draft, id, aborted ? { status: "failed", failure: "error" } : { status: "succeeded" })
  freeSlot(draft, id, "handover")
}

/** Interrupts a checkout wherever it is: waiting, retrying or holding; its slots come back (P4). */
export const interrupt = (draft: Draft, id: string, how: "handover" | "passedOn" = "handover"): void => {
  const op = draft.ops[id]!
  if (op.status !== "pending" && op.status !== "holding") throw new Error(`${id} has ended`)
  draft.interruptions += 1
  const waiting = draft.waiters.indexOf(id)
  update(draft, id, { status: "interrupted", retryAtMs: null })
  if (waiting >= 0) draft.waiters.splice(waiting, 1)
  else if (draft.holders.includes(id)) freeSlot(draft, id, how)
}

/** Advances virtual time to `toMs`, firing due retries in time order (ties in start order). */
export const advance = (draft: Draft, toMs: number): void => {
  for (let round = 0; round < MAX_HANDOVERS; round++) {
    const due = draft.order
      .map((id) => draft.ops[id]!)
      .filter((op) => op.status === "pending" && op.retryAtMs !== null && op.retryAtMs <= toMs)
      .sort((a, b) => a.retryAtMs! - b.retryAtMs! || a.seq - b.seq)[0]
    if (due === undefined) break
    draft.nowMs = due.retryAtMs!
    admit(draft, due.spec.id)
  }
  draft.nowMs = toMs
}
