/**
 * Two engine processes firing the same clock at once, released in a generated order
 * (`models/clocks` `FireRace`, applied by the model as an `AppliedRace`).
 *
 * Every call of a process runs labelled with its name under one scripted hook controller per scenario
 * (`harness/HookPoints.ts`), so the timers a process arms inherit its label. Before virtual time
 * reaches the race's instant, both processes are armed to pause at `clocks.fire.begin`; once both
 * paused, the first is released and runs to quiet, and the second is released at once (lag 0) or held
 * while virtual time moves on by the lag (`releaseHeld`). With `overlap` on an engine with independent
 * connections and row locks, the first is paused again at `clocks.fire.beforeCommit` (its writes done,
 * its transaction open), the second is released into it, and the harness observes the second's lock
 * wait through `pg_blocking_pids` before releasing the first to commit: truly concurrent transactions.
 *
 * Hook points are optional refinements: each pause names the engine's hook point and the storage
 * boundary's own point (`harness/BoundaryPoints.ts`, set on both processes' boundaries for the advance),
 * whichever the fire reaches first. `clocks.fire.begin` stands with the point before the fire's
 * transaction begins, `clocks.fire.beforeCommit` with the point before it commits (C10: a fire is one
 * transaction, and the race's instant fires exactly the two raced timers). A fire paused only before
 * its transaction may already have read the time, so it is not held while time moves on: the race
 * runs with lag 0 (`RaceReport.holdDropped`; a held fire needs the hook point). When a process reaches
 * neither, the wait for its pause is raced with the system staying quiet for as long as a late fire is
 * given (`RaceContext.patience`), every pause is withdrawn, and the race reports itself not realised
 * (the step is then compared with the model's prediction without the race).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { BEFORE_BEGIN_POINT, BEFORE_COMMIT_POINT } from "../../harness/BoundaryPoints.ts"
import { type PausedAt, reachedSince, type ScriptedHooks } from "../../harness/HookPoints.ts"
import { awaitBlocked } from "../../harness/PostgresLocks.ts"
import type { AppliedRace, ProcessName } from "../../models/clocks/index.ts"

/** Hook point both fires pause at first. */
export const RACE_BEGIN_HOOK = "clocks.fire.begin"
/** Hook point the first fire holds its open transaction at (overlap). */
export const RACE_HOLD_HOOK = "clocks.fire.beforeCommit"
/** Where both fires pause first: the engine's hook point, else the boundary's before the fire's transaction. */
const RACE_BEGIN_POINTS: ReadonlyArray<string> = [RACE_BEGIN_HOOK, BEFORE_BEGIN_POINT]
/** Where the first fire holds its open transaction (overlap): the engine's hook point, else the boundary's before COMMIT. */
const RACE_HOLD_POINTS: ReadonlyArray<string> = [RACE_HOLD_HOOK, BEFORE_COMMIT_POINT]
/** Points a fire reaches after its completion statement: reaching one means it did not wait. */
const PAST_COMPLETION_POINTS: ReadonlyArray<string> = ["clocks.fire.beforeCas", BEFORE_COMMIT_POINT]


/** What a race did. */
export interface RaceReport {
  /** Both fires paused where the race needs them (false: the step is compared without the race). */
  readonly realized: boolean
  /** The two transactions overlapped on separate connections. */
  readonly overlapped: boolean
  /** The second's backend was seen waiting on the first's (`pg_blocking_pids`), when overlapped. */
  readonly blocked: boolean
  /** The second fire is still held at `clocks.fire.begin` (lag > 0) until `releaseHeld`. */
  readonly held: boolean
  /**
   * The race's lag was dropped: the second fire paused only at the boundary's point before its
   * transaction (no `clocks.fire.begin`), so it ran at once, as the model's race with lag 0.
   */
  readonly holdDropped: boolean
}

/** Backend ids of the two processes' connections and an observer connection (postgres only). */
export interface OverlapConnections {
  readonly observer: SqlClient.SqlClient
  readonly pids: Readonly<Record<ProcessName, number>>
}

/** What the race runner needs from the session. */
export interface RaceContext {
  readonly hooks: ScriptedHooks
  /** Waits until every process is quiet (see `TransactionProbe.settleTransactions`). */
  readonly settle: Effect.Effect<void>
  /** Waits until every process stayed quiet for the turns a late fire is given (`TransactionProbe.MAX_SETTLE_TURNS`). */
  readonly patience: Effect.Effect<void>
  /** Present where the engine has independent connections and row locks. */
  readonly overlap: OverlapConnections | undefined
}

/**
 * Waits until `label` pauses at its armed point (true) or the system stays quiet without it for as
 * long as a late fire is given (false): the model says the fire is due, so an engine that starts it
 * some turns late still races.
 */
const pausedOrQuiet = (context: RaceContext, label: string): Effect.Effect<PausedAt | undefined> =>
  Effect.raceFirst(context.hooks.awaitPaused(label), Effect.as(context.patience, undefined))

/** Arms both processes to pause at the race's first hook point (before virtual time reaches it). */
export const armRace = (hooks: ScriptedHooks): Effect.Effect<void> =>
  Effect.andThen(hooks.pauseAt("A", RACE_BEGIN_POINTS), hooks.pauseAt("B", RACE_BEGIN_POINTS))

/** Withdraws every pause (a later hit passes straight through). */
const disarm = (hooks: ScriptedHooks) => Effect.andThen(hooks.release("A"), hooks.release("B"))

/** The overlapped release: the first holds its open transaction while the second runs into it. */
const overlapped = (context: RaceContext, race: AppliedRace, connections: OverlapConnections) =>
  Effect.gen(function*() {
    const { hooks } = context
    yield* hooks.release(race.first)
    // Re-arming right after the release is safe: the fire needs server round trips to reach the hold.
    yield* hooks.pauseAt(race.first, RACE_HOLD_POINTS)
    const holding = yield* pausedOrQuiet(context, race.first)
    const mark = hooks.hits().length
    yield* hooks.release(race.second)
    const blocked = holding !== undefined
      ? yield* awaitBlocked(connections.observer, connections.pids[race.second], connections.pids[race.first], () =>
        reachedSince(hooks, mark, race.second, PAST_COMPLETION_POINTS)).pipe(Effect.orElseSucceed(() => false))
      : false
    yield* hooks.release(race.first)
    yield* context.settle
    return { realized: true, overlapped: holding !== undefined, blocked, held: false, holdDropped: false } satisfies RaceReport
  })

/**
 * Runs the race once virtual time stands at its instant (both fires were armed by `armRace`).
 *
 * @example
 * yield* armRace(hooks); yield* advanceByMs(race.atMs - now); const report = yield* runRace(context, race)
 */
export const runRace = (context: RaceContext, race: AppliedRace): Effect.Effect<RaceReport> =>
  Effect.gen(function*() {
    const { hooks } = context
    const pausedA = yield* pausedOrQuiet(context, "A")
    const pausedB = pausedA === undefined ? undefined : yield* pausedOrQuiet(context, "B")
    if (pausedA === undefined || pausedB === undefined) {
      yield* disarm(hooks)
      yield* context.settle
      return { realized: false, overlapped: false, blocked: false, held: false, holdDropped: false }
    }
    if (race.overlap && context.overlap !== undefined) return yield* overlapped(context, race, context.overlap)
    yield* hooks.release(race.first)
    yield* context.settle
    // Paused only before its transaction, the second fire may already have read the time: holding it
    // while time moves on is not the model's later fire, so it goes on at once (the model's lag 0).
    const holdDropped = race.lagMs > 0 && (race.second === "A" ? pausedA : pausedB).hook !== RACE_BEGIN_HOOK
    if (race.lagMs > 0 && !holdDropped) return { realized: true, overlapped: false, blocked: false, held: true, holdDropped }
    yield* hooks.release(race.second)
    yield* context.settle
    return { realized: true, overlapped: false, blocked: false, held: false, holdDropped }
  })

/** Releases the held second fire (lag > 0) once virtual time reached `atMs + lagMs`, and waits for quiet. */
export const releaseHeld = (context: RaceContext, race: AppliedRace): Effect.Effect<void> =>
  Effect.andThen(context.hooks.release(race.second), context.settle)
