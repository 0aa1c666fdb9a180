/**
 * State of the pool model: the admission count, the gate's holders and FIFO waiters, and every
 * checkout the scenario started, with what the model predicts for it. Plain JSON, never mutated in
 * place by `step`.
 */

/** Extra checkouts admitted beyond the connections before refusing (P1). */
export const POOL_WAITERS = 64

/** First retry delay of the retry helper (P7). */
export const RETRY_BASE_MS = 10

/** Longest retry delay of the retry helper (P7). */
export const RETRY_CAP_MS = 250

/** The kinds of checkout a caller makes. */
export type OpKind = "acquire" | "transaction" | "listen" | "borrow" | "notify"

/** One checkout as the scenario asks for it. */
export interface OpSpec {
  /** `o1`, `o2`, ... in start order; flood checkouts `f1`, ...; a re-checkout after release `o3r`. */
  readonly id: string
  readonly kind: OpKind
  /** Wrapped in `retryPoolRefusal`. */
  readonly retry: boolean
  /** borrow: the statement fails on the server; transaction: it aborts, so COMMIT is answered with ROLLBACK. */
  readonly failing: boolean
  /** notify: a channel name over 63 UTF-8 bytes (but not over 63 characters). */
  readonly longChannel: boolean
  /** borrow or notify called inside this holding transaction, or null. */
  readonly inside: string | null
  /**
   * notify with a long channel: rejected only once its checkout is granted (P1 has every notify take
   * admission first; P6 fixes only that nothing naming the channel is sent). Absent: rejected before
   * admission. Set only by `channelCheckAlternatives`.
   */
  readonly channelCheckedAtGrant?: true
}

/** What a caller sees of a checkout. */
export type OpStatus = "pending" | "holding" | "succeeded" | "failed" | "interrupted"

/** How a checkout got its gate slot. */
export type GrantedBy = "none" | "free" | "handover" | "passedOn" | "transaction"

/** The model's record of one checkout. */
export interface ModelOp {
  readonly spec: OpSpec
  readonly status: OpStatus
  /** Why it failed: a pool refusal, or an error from the server (failed statement, aborted commit, long channel). */
  readonly failure: "refusal" | "error" | null
  /** Tagged statements it sent to the server. */
  readonly statements: number
  readonly grantedBy: GrantedBy
  /** Refusals so far (the retry helper retries after each). */
  readonly refusals: number
  /** Virtual time of the next retry, while retrying. */
  readonly retryAtMs: number | null
  /** With the retry helper: the virtual times its attempts began, the first at its start, one more per retry (P7). */
  readonly attemptsAtMs: ReadonlyArray<number>
  /** Start order (ties of retries at one instant go in this order). */
  readonly seq: number
  /**
   * Interrupted at the hand-over: with the implementation's hook point it never ran; without one it may
   * have sent its statement before the interruption landed, so 0 or 1 statements are both right.
   */
  readonly raced: boolean
  /**
   * Its reply was held on the wire and it was interrupted while the server had its statement (or its
   * COMMIT): `"statement"` or `"commit"`, else null. An interrupted COMMIT may still end the way the
   * COMMIT's answer says (the commit is the server's): succeeded, or failed when answered with ROLLBACK,
   * but never succeeded when answered with ROLLBACK (P5).
   */
  readonly inFlight: "statement" | "commit" | null
  /** listen: the payloads of notifications it must have received, in order (sure: no other grant raced). */
  readonly received: ReadonlyArray<Delivery>
}

/** One notification a listener must receive. */
export interface Delivery {
  readonly payload: string
  /** False when the listener and the notify were granted in the same step (their order is the engine's). */
  readonly sure: boolean
}

/** The whole model state. */
export interface PoolModelState {
  readonly maxConnections: number
  readonly nowMs: number
  readonly ops: Readonly<Record<string, ModelOp>>
  /** Ids in start order. */
  readonly order: ReadonlyArray<string>
  /** Checkouts holding a gate slot, in grant order. */
  readonly holders: ReadonlyArray<string>
  /** Checkouts admitted and waiting at the gate, oldest first. */
  readonly waiters: ReadonlyArray<string>
  /** Interruptions so far (a slot the model expects back may have leaked in an implementation). */
  readonly interruptions: number
}

/** Admission bound: maxConnections + POOL_WAITERS. */
export const admissionBound = (state: PoolModelState): number => state.maxConnections + POOL_WAITERS

/** Checkouts admitted now (holding or waiting). */
export const admitted = (state: PoolModelState): number => state.holders.length + state.waiters.length

/** Delay before retry `attempt` (1-based): min(10 * 2^(attempt-1), 250) ms (P7). */
export const retryDelayMs = (attempt: number): number => Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_CAP_MS)

/** The state before any checkout. */
export const initialState = (maxConnections: number, nowMs: number): PoolModelState => {
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new RangeError(`maxConnections ${maxConnections} must be a positive integer`)
  return { maxConnections, nowMs, ops: {}, order: [], holders: [], waiters: [], interruptions: 0 }
}
