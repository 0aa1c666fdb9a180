/**
 * Overlapping transactions as generated data: operations on separate connections that are all open at
 * once, one of them holding its writes uncommitted while the others run into them. Each operation
 * pauses at a `begin` hook point (its transaction open); the first in `order` is released and paused
 * again at a `hold` hook point (its writes done, not committed); the others are released, and then the
 * first is released to commit. So the first's writes precede the others', and every other transaction
 * is open (and may already have run into the first's uncommitted keys, where the engine makes it wait)
 * before the first commits; how far the others get before that commit is up to the engine and the
 * connections, unless the caller waits for it with `whileFirstHolds` (a lock wait seen on the server,
 * say) before the first is released. The order is ordinary data, so it shrinks and replays like
 * `Interleaving.ts` release orders.
 *
 * Hook points are optional refinements: each of `begin` and `hold` may name several points, the
 * implementation's hook point and the storage boundary's own (`AFTER_BEGIN_POINT`,
 * `BEFORE_COMMIT_POINT`, set with `withOpenTransactionPoints`), and an operation pauses at whichever it
 * reaches first. One that reaches none (no transaction) simply runs to completion (the wait for its
 * pause is raced with its end) instead of hanging. The result says how many operations were paused at
 * `begin` together: the overlap the run realised, not the one it asked for.
 *
 * @example
 * ```ts
 * const exits = yield* runOverlapping(yield* makeScriptedHooks, [
 *   { label: "runner0", effect: bootstrap0 }, { label: "runner1", effect: bootstrap1 }
 * ], [1, 0], { begin: "cron.bootstrapBegun", hold: "cron.bootstrapWritten" })
 * ```
 */
import { Effect, type Exit, Fiber } from "effect"
import { labelled, type ScriptedHooks, withScriptedHooks } from "./HookPoints.ts"
import { isReleaseOrder } from "./Interleaving.ts"

/** Bound on the operations of one overlapping run. */
export const MAX_OVERLAPPING_OPERATIONS = 8

/** One operation: runs `effect` labelled `label`. */
export interface OverlappingOperation<A, E, R> {
  readonly label: string
  readonly effect: Effect.Effect<A, E, R>
}

/** The hook points an overlapping run pauses at (each one point, or several: the first reached). */
export interface OverlapHooks {
  /** Reached once the operation's transaction is open. */
  readonly begin: string | ReadonlyArray<string>
  /** Reached once the operation's writes are done and not yet committed. */
  readonly hold: string | ReadonlyArray<string>
}

/** What an overlapping run did. */
export interface OverlappingRun<A, E> {
  /** Each operation's exit, in `operations` order. */
  readonly exits: ReadonlyArray<Exit.Exit<A, E>>
  /** How many operations were paused at `begin` at once (their transactions open together). */
  readonly openTogether: number
  /** What `whileFirstHolds` answered (false when it was not given or the first never reached `hold`). */
  readonly othersWaited: boolean
}

/**
 * Runs while the first operation holds its uncommitted writes and the others were released, before the
 * first commits: a property waits here for evidence the others ran into those writes (a lock wait seen
 * through `pg_blocking_pids`), so how far they got no longer depends on the engine's timing. `ended`
 * says whether operation `index` has finished. Its answer is `OverlappingRun.othersWaited`.
 */
export type WhileFirstHolds = (first: number, ended: (index: number) => boolean) => Effect.Effect<boolean>

/** Runs `operations` overlapping in `order` (see the module comment). */
export const runOverlapping = <A, E, R>(
  hooks: ScriptedHooks,
  operations: ReadonlyArray<OverlappingOperation<A, E, R>>,
  order: ReadonlyArray<number>,
  points: OverlapHooks,
  whileFirstHolds?: WhileFirstHolds
): Effect.Effect<OverlappingRun<A, E>, never, R> =>
  Effect.gen(function*() {
    if (operations.length > MAX_OVERLAPPING_OPERATIONS || !isReleaseOrder(order, operations.length)) {
      return yield* Effect.die(new RangeError(`overlapping run: ${JSON.stringify(order)} is not an order of ${operations.length} operations (at most ${MAX_OVERLAPPING_OPERATIONS})`))
    }
    for (const operation of operations) yield* hooks.pauseAt(operation.label, points.begin)
    const ended = operations.map(() => false)
    const fibers = yield* Effect.forEach(operations, (operation, index) =>
      Effect.forkChild(withScriptedHooks(hooks, labelled(operation.label, operation.effect)).pipe(Effect.ensuring(Effect.sync(() => {
        ended[index] = true
      })))))
    const pausedOrDone = (index: number): Effect.Effect<boolean> =>
      Effect.raceFirst(Effect.as(hooks.awaitPaused(operations[index]!.label), true), Effect.as(Fiber.await(fibers[index]!), false))
    let openTogether = 0
    for (let index = 0; index < operations.length; index++) if (yield* pausedOrDone(index)) openTogether++
    const [first, ...rest] = order
    if (first === undefined) return { exits: [], openTogether, othersWaited: false }
    const firstLabel = operations[first]!.label
    yield* hooks.release(firstLabel)
    // Re-arming right after the release is safe: the released fiber needs a round trip to reach `hold`.
    yield* hooks.pauseAt(firstLabel, points.hold)
    const holding = yield* pausedOrDone(first)
    for (const index of rest) yield* hooks.release(operations[index]!.label)
    const othersWaited = holding && whileFirstHolds !== undefined ? yield* whileFirstHolds(first, (index) => ended[index] === true) : false
    yield* hooks.release(firstLabel)
    return { exits: yield* Effect.forEach(fibers, (fiber) => Fiber.await(fiber)), openTogether, othersWaited }
  })
