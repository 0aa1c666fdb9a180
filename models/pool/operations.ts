/**
 * The pool model's operations (resolved: every checkout named by id) and the generated commands they
 * come from. `resolveCommand` reads the model state to turn a generated command into an operation
 * (which checkout to release or interrupt, how many checkouts fill admission), so generation never
 * needs the state and shrinking keeps commands meaningful; null when the command has nothing to act on.
 */
import { admissionBound, admitted, type OpKind, type OpSpec, type PoolModelState } from "./state.ts"
import { holdsUntilReleased } from "./step.ts"

/** A generated command: plain JSON, resolved against the model state when it runs. */
export type PoolCommand =
  | {
    readonly op: "start"
    readonly kind: OpKind
    readonly retry: boolean
    readonly failing: boolean
    readonly longChannel: boolean
    /** borrow/notify: run inside the n-th holding transaction (modulo), when there is one. */
    readonly inside: number | null
    /** Hold the server's reply to its statement and interrupt it then (when it is granted at once). */
    readonly holdReply?: boolean
  }
  | {
    readonly op: "release"
    readonly pick: number
    readonly reborrow: boolean
    /** A transaction: hold the server's reply to its COMMIT and interrupt it then. */
    readonly holdCommit?: boolean
  }
  | { readonly op: "interrupt"; readonly pick: number; readonly waiting: boolean }
  | { readonly op: "handoverInterrupt"; readonly pick: number }
  | { readonly op: "flood"; readonly extra: number }
  | { readonly op: "drain" }
  | { readonly op: "advance"; readonly ms: number }

/** A resolved operation of the model. */
export type PoolOperation =
  | { readonly op: "start"; readonly spec: OpSpec }
  /** Start `spec` (granted at once), hold the reply to its statement, interrupt it, release the reply. */
  | { readonly op: "interruptStatement"; readonly spec: OpSpec }
  /** Release transaction `id`, hold the reply to its COMMIT, interrupt it, release the reply. */
  | { readonly op: "interruptCommit"; readonly id: string }
  | { readonly op: "release"; readonly id: string; readonly reborrow: string | null }
  | { readonly op: "interrupt"; readonly id: string }
  | { readonly op: "handoverInterrupt"; readonly holder: string; readonly waiter: string }
  | { readonly op: "flood"; readonly ids: ReadonlyArray<string> }
  | { readonly op: "drain"; readonly ids: ReadonlyArray<string> }
  | { readonly op: "advance"; readonly toMs: number }
  | { readonly op: "probe"; readonly interrupt: ReadonlyArray<string>; readonly ids: ReadonlyArray<string> }

/** Most checkouts a flood starts past the bound. */
export const MAX_FLOOD_EXTRA = 3

const pick = <A>(items: ReadonlyArray<A>, index: number): A | undefined =>
  items.length === 0 ? undefined : items[((index % items.length) + items.length) % items.length]

/** Checkouts still alive (pending or holding), in start order. */
export const aliveIds = (state: PoolModelState): ReadonlyArray<string> =>
  state.order.filter((id) => state.ops[id]!.status === "pending" || state.ops[id]!.status === "holding")

/** Alive checkouts in the order that interrupting them frees nothing early: waiters newest first, retriers, then holders. */
export const teardownOrder = (state: PoolModelState, ids: ReadonlyArray<string>): ReadonlyArray<string> => {
  const chosen = new Set(ids)
  const waiters = [...state.waiters].reverse().filter((id) => chosen.has(id))
  const holders = state.holders.filter((id) => chosen.has(id))
  const others = ids.filter((id) => !waiters.includes(id) && !holders.includes(id))
  return [...waiters, ...others, ...holders]
}

const holdingTransactions = (state: PoolModelState): ReadonlyArray<string> =>
  state.holders.filter((id) => {
    const spec = state.ops[id]!.spec
    return spec.kind === "transaction" && spec.inside === null
  })

/** The operation `command` means in `state`, or null when it has nothing to act on. */
export const resolveCommand = (state: PoolModelState, command: PoolCommand): PoolOperation | null => {
  const nextId = `o${state.order.length + 1}`
  switch (command.op) {
    case "start": {
      const nested = command.kind === "borrow" || command.kind === "notify"
      const inside = nested && command.inside !== null ? pick(holdingTransactions(state), command.inside) ?? null : null
      const spec: OpSpec = {
        id: nextId,
        kind: command.kind,
        // A long channel fails before admission; retrying it would make a wrong retry and a wrong channel
        // check indistinguishable from outside, so that checkout is never wrapped in the retry helper.
        retry: command.retry && inside === null && !(command.kind === "notify" && command.longChannel && admitted(state) < admissionBound(state)),
        failing: (command.kind === "borrow" || command.kind === "transaction") && command.failing && inside === null,
        // Under full admission a late channel check is refused like any checkout, which from outside
        // looks the same as a retry helper that takes errors for refusals; the long channel is checked
        // while admission has room, where a late check shows as a statement on the wire.
        longChannel: command.kind === "notify" && command.longChannel && admitted(state) < admissionBound(state),
        inside
      }
      const grantedAtOnce = admitted(state) < admissionBound(state) && state.holders.length < state.maxConnections && state.waiters.length === 0
      const holdable = spec.kind === "acquire" || spec.kind === "borrow" || spec.kind === "transaction"
      return command.holdReply === true && holdable && inside === null && grantedAtOnce ? { op: "interruptStatement", spec } : { op: "start", spec }
    }
    case "release": {
      const id = pick(state.holders.filter((holder) => holdsUntilReleased(state.ops[holder]!.spec)), command.pick)
      if (id === undefined) return null
      const spec = state.ops[id]!.spec
      if (command.holdCommit === true && spec.kind === "transaction" && spec.inside === null) return { op: "interruptCommit", id }
      return { op: "release", id, reborrow: command.reborrow ? `${id}r` : null }
    }
    case "interrupt": {
      const candidates = command.waiting
        ? aliveIds(state).filter((id) => !state.holders.includes(id))
        : state.holders.filter((holder) => holdsUntilReleased(state.ops[holder]!.spec))
      const id = pick(candidates, command.pick)
      return id === undefined ? null : { op: "interrupt", id }
    }
    case "handoverInterrupt": {
      const holder = pick(state.holders.filter((id) => holdsUntilReleased(state.ops[id]!.spec)), command.pick)
      const waiter = state.waiters[0]
      return holder === undefined || waiter === undefined ? null : { op: "handoverInterrupt", holder, waiter }
    }
    case "flood": {
      const count = Math.max(0, admissionBound(state) - admitted(state)) + Math.min(MAX_FLOOD_EXTRA, Math.max(0, command.extra))
      return { op: "flood", ids: Array.from({ length: count }, (_, index) => `f${state.order.length + 1 + index}`) }
    }
    case "drain": {
      const flood = aliveIds(state).filter((id) => id.startsWith("f"))
      return flood.length === 0 ? null : { op: "drain", ids: teardownOrder(state, flood) }
    }
    case "advance":
      return { op: "advance", toMs: state.nowMs + Math.max(0, Math.trunc(command.ms)) }
  }
}

/**
 * The operations P1 and P6 allow for `operation`: a notify with a long channel is rejected before
 * admission (canonical, as shipped) or once its checkout is granted (P1: every notify first takes an
 * admission slot; P6 fixes only that nothing naming the channel is sent). A step is judged by the
 * first the implementation agrees with (`harness/Alternatives.ts`).
 */
export const channelCheckAlternatives = (operation: PoolOperation): ReadonlyArray<PoolOperation> =>
  operation.op === "start" && operation.spec.kind === "notify" && operation.spec.longChannel
    ? [operation, { op: "start", spec: { ...operation.spec, channelCheckedAtGrant: true } }]
    : [operation]

/** The closing leak probe: interrupt everything alive, then `maxConnections` fresh acquires must all hold. */
export const probeOperation = (state: PoolModelState): PoolOperation => ({
  op: "probe",
  interrupt: teardownOrder(state, aliveIds(state)),
  ids: Array.from({ length: state.maxConnections }, (_, index) => `p${index + 1}`)
})

/** A plain acquire checkout (flood and probe). */
export const plainAcquire = (id: string): OpSpec => ({ id, kind: "acquire", retry: false, failing: false, longChannel: false, inside: null })

/** A plain borrowed statement (the re-checkout after a release). */
export const plainBorrow = (id: string): OpSpec => ({ id, kind: "borrow", retry: false, failing: false, longChannel: false, inside: null })
