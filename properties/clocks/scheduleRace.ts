/**
 * Two engine processes scheduling the same clock at once (models/clocks `scheduleRace`): C8 asks that
 * scheduling is one transaction that inserts the clock or, when it exists, returns the stored row
 * unchanged. A store that looks the row up and then inserts without a conflict clause passes every
 * sequential schedule and fails only here: both look, neither sees the other's uncommitted row, and the
 * loser dies on the primary key.
 *
 * Where the engine has independent connections and row locks (a Postgres server), the two schedules
 * overlap (`harness/Overlapping.ts`): both transactions are opened at the storage boundary's point
 * after BEGIN; the first is released and held at the boundary's point before COMMIT, its insert done
 * and uncommitted; the second is released into it, and the harness waits until the server shows the
 * second waiting on the first's lock (`pg_blocking_pids`), or until the second went past its writes or
 * ended, before the first commits. Elsewhere the two run one after the other, the first to completion
 * first. Either way the first's deadline is the stored one, and the model predicts exactly that.
 *
 * The boundary's points are the storage boundary's own, so no hook point of the implementation's is
 * needed. A store that opens no transaction reaches neither point and its schedules run unordered; the
 * report says so (`ordered` false), and the step is then judged by either order.
 */
import { Effect, Exit } from "effect"
import { AFTER_BEGIN_POINT, BEFORE_COMMIT_POINT, withOpenTransactionPoints } from "../../harness/BoundaryPoints.ts"
import { reachedSince, type ScriptedHooks } from "../../harness/HookPoints.ts"
import { type OverlapHooks, runOverlapping } from "../../harness/Overlapping.ts"
import { awaitBlocked } from "../../harness/PostgresLocks.ts"
import type { StorageBoundary } from "../../harness/StorageBoundary.ts"
import { type FaultedCommand, FLOW, otherProcess, type ProcessName } from "../../models/clocks/index.ts"
import type { ClocksService } from "../../subjects/clocks/api.ts"
import type { OverlapConnections } from "./race.ts"

/** A scheduling race command. */
export type ScheduleRaceCommand = Extract<FaultedCommand, { readonly op: "scheduleRace" }>

/** Where each schedule pauses: its transaction open, then (the first) its writes done before COMMIT. */
const SCHEDULE_OVERLAP: OverlapHooks = { begin: [AFTER_BEGIN_POINT], hold: [BEFORE_COMMIT_POINT] }

/** What a scheduling race did. */
export interface ScheduleRaceReport {
  /** The first committed before the second did anything that could decide the stored row (false: unordered). */
  readonly ordered: boolean
  /** Both transactions were open at once, the first holding its writes while the second ran into them. */
  readonly overlapped: boolean
  /** The second was seen waiting on the first's lock before the first committed. */
  readonly blocked: boolean
}

/** What the race needs from the session. */
export interface ScheduleRaceContext {
  readonly hooks: ScriptedHooks
  readonly boundaries: Readonly<Record<ProcessName, StorageBoundary>>
  readonly services: Readonly<Record<ProcessName, ClocksService>>
  /** Runs `effect` as process `name`'s (its label, its logger). */
  readonly as: <A, E, R>(name: ProcessName, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Present where the engine has independent connections and row locks. */
  readonly overlap: OverlapConnections | undefined
}

/** `scheduleClock` of clock `clock` of execution `exec` in `FLOW`, as a flow's sleep calls it. */
export const scheduleOn = (service: ClocksService, exec: string, clock: string, durationMs: number) =>
  service.scheduleClock({ _tag: FLOW }, { executionId: exec, clock: { name: clock, durationMs, deferred: { name: `${clock}:fired` } } })

/** Succeeds when every exit succeeded; otherwise fails as the first failed one did (in release order). */
const failedFirst = (exits: ReadonlyArray<Exit.Exit<unknown, unknown>>): Effect.Effect<null, unknown> => {
  const failed = exits.find(Exit.isFailure)
  return failed === undefined ? Effect.succeed(null) : Effect.failCause(failed.cause)
}

/**
 * Runs the race of `command` (see the module comment); its result is the call's: null, or the first
 * failure in release order. `report` receives what the race did before the result is returned.
 */
export const runScheduleRace = (context: ScheduleRaceContext, command: ScheduleRaceCommand, report: (done: ScheduleRaceReport) => void) =>
  Effect.gen(function*() {
    const { hooks, overlap } = context
    const order: readonly [ProcessName, ProcessName] = [command.first, otherProcess(command.first)]
    const schedules = order.map((name) => ({
      label: name,
      effect: context.as(name, scheduleOn(context.services[name], command.exec, command.clock, command.durationsMs[name]))
    }))
    if (!command.overlap || overlap === undefined) {
      const exits: Array<Exit.Exit<unknown, unknown>> = []
      for (const schedule of schedules) exits.push(yield* Effect.exit(schedule.effect))
      report({ ordered: true, overlapped: false, blocked: false })
      return yield* failedFirst(exits)
    }
    const mark = hooks.hits().length
    const [first, second] = order
    // Until the second waits on the first's lock, or went past its writes without waiting, or ended.
    const whileFirstHolds = (_first: number, ended: (index: number) => boolean) =>
      awaitBlocked(overlap.observer, overlap.pids[second], overlap.pids[first], () => ended(1) || reachedSince(hooks, mark, second, [BEFORE_COMMIT_POINT]))
        .pipe(Effect.orElseSucceed(() => false))
    const run = yield* withOpenTransactionPoints([context.boundaries.A, context.boundaries.B], hooks, runOverlapping(hooks, schedules, [0, 1], SCHEDULE_OVERLAP, whileFirstHolds))
    const overlapped = run.openTogether === 2
    report({ ordered: overlapped, overlapped, blocked: run.othersWaited })
    return yield* failedFirst(run.exits)
  })
