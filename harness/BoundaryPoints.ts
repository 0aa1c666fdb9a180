/**
 * The storage boundary's own scheduling points (`StorageBoundary.setTransactionPoints`) as race points
 * of the scripted controller (`HookPoints.ts`): a race pauses an operation there as at a hook point,
 * with `startPaused` and `releaseTo`, but the implementation needs no hook point and cannot skip them.
 * Races name both, the implementation's hook point first: a store that has it pauses where it always
 * did, and one without pauses at the boundary's.
 */
import { Effect } from "effect"
import { OperationLabel, type ScriptedHooks } from "./HookPoints.ts"
import type { StorageBoundary, TransactionPoints } from "./StorageBoundary.ts"

/** The point an operation's transaction reaches after its body, before COMMIT (`holdingBeforeCommit`). */
export const BEFORE_COMMIT_POINT = "storage.beforeCommit"
/** The point an operation reaches before its outermost transaction begins (clocks: `TransactionProbe`'s `beforeBegin`). */
export const BEFORE_BEGIN_POINT = "storage.beforeBegin"
/** The point an operation's outermost transaction reaches first thing after BEGIN, before its body. */
export const AFTER_BEGIN_POINT = "storage.afterBegin"

/**
 * Points that bring every operation's outermost transactions to `BEFORE_COMMIT_POINT` under its own
 * label: a race arms the label it wants to hold (an unarmed label passes straight through).
 */
export const everyOperationsBeforeCommit = (hooks: ScriptedHooks): TransactionPoints => ({ beforeCommit: hooks.service.at(BEFORE_COMMIT_POINT) })

/**
 * Points that bring every operation's outermost transactions to `AFTER_BEGIN_POINT` and to
 * `BEFORE_COMMIT_POINT` under its own label: a race arms the label it wants to pause (an unarmed label
 * passes straight through). Used where each boundary runs one racing operation (cron's runners).
 */
export const everyOperationsOpenTransaction = (hooks: ScriptedHooks): TransactionPoints => ({
  afterBegin: hooks.service.at(AFTER_BEGIN_POINT),
  beforeCommit: hooks.service.at(BEFORE_COMMIT_POINT)
})

/** The current operation reaches `name` through `hooks` when it is `label`; any other passes on. */
export const pointOf = (hooks: ScriptedHooks, label: string, name: string): Effect.Effect<void> =>
  Effect.flatMap(Effect.service(OperationLabel), (current) => (current === label ? hooks.service.at(name) : Effect.void))

/**
 * Points that bring each transaction of operation `label` to `BEFORE_COMMIT_POINT`: paused there, the
 * transaction holds every lock its body took.
 *
 * @example boundary.setTransactionPoints(holdingBeforeCommit(hooks, "first"))
 */
export const holdingBeforeCommit = (hooks: ScriptedHooks, label: string): TransactionPoints => ({ beforeCommit: pointOf(hooks, label, BEFORE_COMMIT_POINT) })

/**
 * `effect` with `everyOperationsOpenTransaction(hooks)` set on each of `boundaries` while it runs:
 * operations on separate boundaries (cron's runners) pause at either point only where armed.
 */
export const withOpenTransactionPoints = <A, E, R>(
  boundaries: ReadonlyArray<PointedBoundary>,
  hooks: ScriptedHooks,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const points = everyOperationsOpenTransaction(hooks)
  return boundaries.reduce((wrapped, boundary) => withBoundaryPoints(boundary, points, wrapped), effect)
}

/** What `withBoundaryPoints` needs of a boundary. */
export type PointedBoundary = Pick<StorageBoundary, "setTransactionPoints" | "withAutoCommittedWrites">

/**
 * `effect` with `points` set on `boundary` while it runs (cleared after, however it ends), and its
 * writes outside a transaction reaching them as transactions do (`StorageBoundary.withAutoCommittedWrites`).
 */
export const withBoundaryPoints = <A, E, R>(boundary: PointedBoundary, points: TransactionPoints, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    boundary.setTransactionPoints(points)
    return boundary.withAutoCommittedWrites(effect)
  }).pipe(Effect.ensuring(Effect.sync(() => boundary.setTransactionPoints(undefined))))
