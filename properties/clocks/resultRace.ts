/**
 * Two engine processes reading one deferred at once (models/clocks `resultRace`): C7 asks that a
 * deferred's first read records its consumption once, and that every later read changes nothing. An
 * engine reads the row, sees it unconsumed, then records the consumption in a transaction; a store
 * whose consumption is not conditional on the row still being unconsumed passes every sequential read
 * and fails only when two first reads interleave at different times: the later writer overwrites the
 * first consumption and records a second, conflicting one.
 *
 * The process other than `first` starts first and is held at the storage boundary's point before its
 * transaction begins (`BEFORE_BEGIN_POINT`, the transaction probe's), having made any read outside a
 * transaction; virtual time moves on by the lag (timers fire as in an advance); `first` reads to
 * completion; then the held read is released. No hook point of the implementation's is needed. A read
 * that begins no transaction never pauses: it ran through before time moved on, and the report says
 * so (`held` false), so the step is judged by that order.
 */
import { Effect, Exit } from "effect"
import { BEFORE_BEGIN_POINT } from "../../harness/BoundaryPoints.ts"
import type { ScriptedHooks } from "../../harness/HookPoints.ts"
import { finish, startPaused } from "../../harness/PausedOperations.ts"
import { type FaultedCommand, otherProcess, type ProcessName } from "../../models/clocks/index.ts"
import type { Json } from "../../models/clocks/types.ts"

/** A reading race command. */
export type ResultRaceCommand = Extract<FaultedCommand, { readonly op: "resultRace" }>

/** The operation label of the held read: only it pauses, never a timer or fire of its process. */
export const HELD_READ_LABEL = "clocks.heldRead"

/** What a reading race did. */
export interface ResultRaceReport {
  /** The held read paused before its transaction began (false: it ran through before time moved on). */
  readonly held: boolean
}

/** What the race needs from the session. */
export interface ResultRaceContext {
  readonly hooks: ScriptedHooks
  /** Process `name`'s `deferredResult` of the command's deferred, unlabelled (the race labels the held one). */
  readonly readAs: (name: ProcessName) => Effect.Effect<Json, unknown>
  /** Runs `effect` as process `name`'s (its label, its logger). */
  readonly as: <A, E, R>(name: ProcessName, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Moves virtual time on by the command's lag, firing what falls due, and waits for quiet. */
  readonly lag: Effect.Effect<void, unknown>
  /** Runs `effect` with the transaction probe's point before BEGIN reaching the scripted controller. */
  readonly withBeginPoints: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Both reads' values as `{A, B}`, or the first failure, `first`'s before the held one's. */
const bothOrFailure = (first: ProcessName, firstExit: Exit.Exit<Json, unknown>, heldExit: Exit.Exit<Json, unknown>): Effect.Effect<Json, unknown> =>
  Effect.gen(function*() {
    const firstValue = yield* firstExit
    const heldValue = yield* heldExit
    return first === "A" ? { A: firstValue, B: heldValue } : { A: heldValue, B: firstValue }
  })

/**
 * Runs the race of `command` (see the module comment); its result is `{A, B}`, each read's value, or
 * the first failure. `report` receives what the race did before the result is returned.
 */
export const runResultRace = (context: ResultRaceContext, command: ResultRaceCommand, report: (done: ResultRaceReport) => void): Effect.Effect<Json, unknown> =>
  Effect.gen(function*() {
    const held = otherProcess(command.first)
    const heldRead = yield* context.withBeginPoints(startPaused(context.hooks, HELD_READ_LABEL, BEFORE_BEGIN_POINT, context.readAs(held)))
    report({ held: heldRead.paused })
    yield* context.lag
    const firstExit = yield* Effect.exit(context.as(command.first, context.readAs(command.first)))
    const heldExit = yield* finish(context.hooks, heldRead)
    return yield* bothOrFailure(command.first, firstExit, heldExit)
  })
