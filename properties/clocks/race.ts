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
 * Hook points are optional refinements: when a process never reaches one, the wait for its pause is
 * raced with the system going quiet, every pause is withdrawn, and the race reports itself not realised
 * (the step is then compared with the model's prediction without the race).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { ScriptedHooks } from "../../harness/HookPoints.ts"
import { awaitBlocked } from "../../harness/PostgresLocks.ts"
import type { AppliedRace, ProcessName } from "../../models/clocks/index.ts"

/** Hook point both fires pause at first. */
export const RACE_BEGIN_HOOK = "clocks.fire.begin"
/** Hook point the first fire holds its open transaction at (overlap). */
export const RACE_HOLD_HOOK = "clocks.fire.beforeCommit"
/** Hook point a fire reaches after its completion statement: reaching it means it did not wait. */
const PAST_COMPLETION_HOOK = "clocks.fire.beforeCas"


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
  /** Present where the engine has independent connections and row locks. */
  readonly overlap: OverlapConnections | undefined
}

/** Waits until `label` pauses at its armed hook (true) or the system goes quiet without it (false). */
const pausedOrQuiet = (context: RaceContext, label: string): Effect.Effect<boolean> =>
  Effect.raceFirst(Effect.as(context.hooks.awaitPaused(label), true), Effect.as(context.settle, false))

const reachedSince = (hooks: ScriptedHooks, mark: number, label: string, hook: string): boolean =>
  hooks.hits().slice(mark).some((hit) => hit.label === label && hit.hook === hook)

/** Arms both processes to pause at the race's first hook point (before virtual time reaches it). */
export const armRace = (hooks: ScriptedHooks): Effect.Effect<void> =>
  Effect.andThen(hooks.pauseAt("A", RACE_BEGIN_HOOK), hooks.pauseAt("B", RACE_BEGIN_HOOK))

/** Withdraws every pause (a later hit passes straight through). */
const disarm = (hooks: ScriptedHooks) => Effect.andThen(hooks.release("A"), hooks.release("B"))

/** The overlapped release: the first holds its open transaction while the second runs into it. */
const overlapped = (context: RaceContext, race: AppliedRace, connections: OverlapConnections) =>
  Effect.gen(function*() {
    const { hooks } = context
    yield* hooks.release(race.first)
    // Re-arming right after the release is safe: the fire needs server round trips to reach the hold.
    yield* hooks.pauseAt(race.first, RACE_HOLD_HOOK)
    const holding = yield* pausedOrQuiet(context, race.first)
    const mark = hooks.hits().length
    yield* hooks.release(race.second)
    const blocked = holding
      ? yield* awaitBlocked(connections.observer, connections.pids[race.second], connections.pids[race.first], () =>
        reachedSince(hooks, mark, race.second, PAST_COMPLETION_HOOK)).pipe(Effect.orElseSucceed(() => false))
      : false
    yield* hooks.release(race.first)
    yield* context.settle
    return { realized: true, overlapped: holding, blocked, held: false } satisfies RaceReport
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
    const bothPaused = (yield* pausedOrQuiet(context, "A")) && (yield* pausedOrQuiet(context, "B"))
    if (!bothPaused) {
      yield* disarm(hooks)
      yield* context.settle
      return { realized: false, overlapped: false, blocked: false, held: false }
    }
    if (race.overlap && context.overlap !== undefined) return yield* overlapped(context, race, context.overlap)
    yield* hooks.release(race.first)
    yield* context.settle
    if (race.lagMs > 0) return { realized: true, overlapped: false, blocked: false, held: true }
    yield* hooks.release(race.second)
    yield* context.settle
    return { realized: true, overlapped: false, blocked: false, held: false }
  })

/** Releases the held second fire (lag > 0) once virtual time reached `atMs + lagMs`, and waits for quiet. */
export const releaseHeld = (context: RaceContext, race: AppliedRace): Effect.Effect<void> =>
  Effect.andThen(context.hooks.release(race.second), context.settle)
