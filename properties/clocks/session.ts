/**
 * The implementation side of one clocks scenario: process A built over the harness's storage
 * boundary (so storage faults strike it), an optional process B over its own boundary on an
 * independent connection when the adapter has one (two engines firing the same clock at once; faults
 * strike B's own sweeps), the journal, the run registry and the `scheduleResume` recorder the harness
 * injects, each command mapped to its call, and what is observed after it. Every call runs labelled
 * with its process under one scripted hook controller, so an advance can release the two processes'
 * fires of one clock in the model's race order (`race.ts`), and both processes can schedule one clock
 * at once (`scheduleRace.ts`). A crash ends the process from outside;
 * the session then closes its scope (its timers die with it) and starts it again with its
 * registration sweep (`sweepDue(flow)`), as a restarted engine does. A generated `restart` is the
 * same, with the step's faults striking the recovery's transactions.
 */
import { Cause, Context, Data, Effect, Exit, Option, Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { labelled, makeScriptedHooks, withScriptedHooks } from "../../harness/HookPoints.ts"
import { BEFORE_BEGIN_POINT, everyOperationsBeforeCommit, withBoundaryPoints } from "../../harness/BoundaryPoints.ts"
import { FAILURE_LOG_LEVELS, handingLogger, withLogsTo } from "../../harness/LogRecorder.ts"
import { resultJson } from "../../harness/ModelBased.ts"
import { backendPidOf } from "../../harness/PostgresLocks.ts"
import type { ExecutionEnvironment, Json } from "../../harness/Property.ts"
import { makeTransactionProbe, settleTransactions as settle, settleUntil, type TransactionProbe } from "../../harness/TransactionProbe.ts"
import { makeSpanRecorder } from "../../harness/SpanRecorder.ts"
import { makeStorageBoundary, type StorageBoundary } from "../../harness/StorageBoundary.ts"
import { type FaultAsStruck, faultAsStruck } from "../../harness/StruckFault.ts"
import { advanceByMs, nowMs } from "../../harness/VirtualClock.ts"
import { HarnessError, ownWorkFailure } from "../../harness/errors.ts"
import { type AppliedRace, effectDescriptor, effectOutput, FLOW, type FaultedCommand, type ProcessName, SOURCE } from "../../models/clocks/index.ts"
import type { ClocksImplementation, ClocksService, ResumeReason } from "../../subjects/clocks/api.ts"
import { clocksDialect } from "../../subjects/clocks/dialect.ts"
import { type JournalControls, makeHarnessJournal, type SharedJournalState } from "./journalHarness.ts"
import { armRace, type OverlapConnections, type RaceContext, type RaceReport, releaseHeld, runRace } from "./race.ts"
import { runResultRace, type ResultRaceReport } from "./resultRace.ts"
import { runScheduleRace, scheduleOn, type ScheduleRaceReport } from "./scheduleRace.ts"

/**
 * The flow instance as upstream's flow runtime provides it: a service under upstream's key
 * (`@smthrs/flow/FlowRuntime/FlowInstance`), not the subject's class, so an implementation finds it
 * only if it asks for upstream's key (C7: `deferredResult` reads the current instance).
 */
class UpstreamFlowInstance extends Context.Service<UpstreamFlowInstance, { readonly flow: { readonly _tag: string }; readonly executionId: string }>()(
  "@smthrs/flow/FlowRuntime/FlowInstance"
) {}

/** A scripted irreversible effect's failure. */
export class ScriptedEffectError extends Data.TaggedError("ScriptedEffectError")<{}> {}

/** One recorded `scheduleResume` call, with the session step it happened in. */
export interface LoggedResume {
  readonly process: ProcessName
  readonly executionId: string
  readonly reason: ResumeReason
  readonly sourceId: string | null
  readonly step: number
}

interface Process {
  readonly scope: Scope.Closeable
  readonly service: ClocksService
  readonly probe: TransactionProbe
  readonly controls: JournalControls
}

/**
 * What the model says a call's fires do: the resumes in all, and per waypoint of an advance (its fire
 * instants) the resumes logged and process A's storage transactions started there (a failed fire makes
 * no resume). The session settles until they have happened (at most `MAX_SETTLE_TURNS` turns more), so
 * an engine that starts a fire some turns late is not judged before it did.
 */
export interface ExpectedFires {
  readonly resumes: number
  readonly resumesAtWaypoints: ReadonlyArray<number>
  readonly transactionsAtWaypoints: ReadonlyArray<number>
}

/**
 * Turns a liveness round that looks quiet waits for late work. The phase ends after four quiet rounds in
 * a row, so work that starts within about 4 x 2 x 25 = 200 turns (as `MAX_SETTLE_TURNS` gives a step)
 * is seen; in workerd a turn is a timer of about a millisecond, so the wait is spread over the quiet
 * rounds rather than paid at full length by each (measured: 185 s instead of 27 s for
 * `clocks/liveness` on do-sqlite at the gate's budget).
 */
export const LATE_WORK_TURNS_PER_QUIET_ROUND = 25

/** A call that fires nothing. */
const NO_FIRES: ExpectedFires = { resumes: 0, resumesAtWaypoints: [], transactionsAtWaypoints: [] }

/** Per waypoint, the resume count and process A's transaction count a settle there waits for. */
interface WaypointTarget {
  readonly resumes: number
  readonly startedA: number
}

/** Running totals of `expected` from the counts now: the targets of each waypoint in turn. */
const waypointTargetsOf = (expected: ExpectedFires, resumesNow: number, startedANow: number): ReadonlyArray<WaypointTarget> => {
  let resumes = resumesNow
  let startedA = startedANow
  return expected.resumesAtWaypoints.map((resumesThere, index) => {
    resumes += resumesThere
    startedA += expected.transactionsAtWaypoints[index] ?? 0
    return { resumes, startedA }
  })
}

/** One scenario's implementation side. */
export interface ClocksSession {
  readonly boundary: StorageBoundary
  /**
   * Runs one command with its faults armed, advancing through `waypointsMs` for `advance` and
   * releasing the two processes' fires of `race` (the model's) in its order.
   */
  readonly call: (command: FaultedCommand, step: number, waypointsMs: ReadonlyArray<number>, race?: AppliedRace | null, expected?: ExpectedFires) => Effect.Effect<Json, HarnessError>
  /** How the last call's storage fault struck (undefined: it armed none). */
  readonly lastFault: () => FaultAsStruck | undefined
  /** The span names the last call opened (`harness/SpanRecorder.ts`). */
  readonly lastSpans: () => ReadonlyArray<string>
  /** What the last call's race did (null: it had none). */
  readonly lastRace: () => RaceReport | null
  /** What the last call's scheduling race did (null: it was none). */
  readonly lastScheduleRace: () => ScheduleRaceReport | null
  /** What the last step's reading race did, or null when the step had none. */
  readonly lastResultRace: () => ResultRaceReport | null
  /** When the last call's run stopped waiting (`deferredDoneIfWaiting` with `stopsWaiting`; null: no such call). */
  readonly lastWaitingStop: () => "atBegin" | "after" | null
  /**
   * Advances virtual time by `ms` and waits for quiet; a round that saw no activity then waits up to
   * `LATE_WORK_TURNS_PER_QUIET_ROUND` turns more for late work (the liveness phase has no prediction to
   * wait for). Returns the activity it saw.
   */
  readonly advanceQuietly: (ms: number, step: number) => Effect.Effect<number, HarnessError>
  readonly resumeLog: () => ReadonlyArray<LoggedResume>
  /** Transactions started by every process plus resumes recorded so far (an activity counter). */
  readonly activity: () => number
  /** Event types sent to the lossy channel so far. */
  readonly lossyRecords: () => ReadonlyArray<string>
  /** Every part of a record handed to the journal that was not a JSON value, so far (`<event type> <path>`). */
  readonly nonJsonRecordParts: () => ReadonlyArray<string>
  /** Identity of every clock-scheduled record handed to any process's journal, in order (`journalHarness.ts`). */
  readonly announcedRecords: () => ReadonlyArray<string>
  /** Executions of scripted irreversible effects so far. */
  readonly effectRuns: () => number
  /** Lossy flushes the latched sink failed so far. */
  readonly flushFailures: () => number
  /** Log entries at a failure level (`FAILURE_LOG_LEVELS`) either process wrote so far. */
  readonly failureLogs: () => number
}

/** A failure of the harness's own work, as a `HarnessError` naming `what`. */
export const harnessError = ownWorkFailure("clocks", "the adapter's database or the implementation's make failed outside a scenario's calls")

/** The error of a failed call, by tag (`JournalError`, `SqlError`, `ScriptedEffectError`, ...). */
export const errorName = (error: unknown): Json => {
  if (typeof error !== "object" || error === null || !("_tag" in error) || typeof (error as { _tag: unknown })._tag !== "string") {
    return `untagged ${String(error)}`
  }
  const reason = (error as { readonly reason?: unknown }).reason
  return typeof reason === "string" ? `${(error as { _tag: string })._tag}:${reason}` : (error as { _tag: string })._tag
}

/** `deferredResult` of `deferred` as a flow instance of execution `exec` in `FLOW` calls it: Some(exit) or None. */
const readOn = (service: ClocksService, exec: string, deferred: string): Effect.Effect<Json, unknown> =>
  Effect.map(
    service.deferredResult({ name: deferred }).pipe(Effect.provideService(UpstreamFlowInstance, { flow: { _tag: FLOW }, executionId: exec })) as Effect.Effect<Option.Option<unknown>, never>,
    (exit): Json => (Option.isSome(exit) ? { _tag: "Some", value: exit.value as Json } : { _tag: "None" })
  )

/** Opens the session for `implementation` on the environment's database. */
export const openClocksSession = (implementation: ClocksImplementation, environment: ExecutionEnvironment): Effect.Effect<ClocksSession, HarnessError> =>
  Effect.gen(function*() {
    const database = environment.database
    const dialect = clocksDialect(environment.dialect)
    const boundary = makeStorageBoundary(database.sql, database.platformAlarm)
    /** B's own boundary, over its own connection where the adapter has one: faults strike B's sweeps too. */
    const boundaryB = makeStorageBoundary(database.connections[1] ?? database.sql, database.platformAlarm)
    const boundaryOf = (name: ProcessName) => (name === "A" ? boundary : boundaryB)
    const shared: SharedJournalState = { latched: false, flushFailures: 0, lossy: [], nonJson: [], announced: [] }
    const waiting = new Map<string, { readonly reason: string; readonly token: string }>()
    const resumes: Array<LoggedResume> = []
    let currentStep = 0
    let effectRuns = 0
    let lastRace: RaceReport | null = null
    let lastScheduleRace: ScheduleRaceReport | null = null
    let lastResultRace: ResultRaceReport | null = null
    let lastWaitingStop: "atBegin" | "after" | null = null
    let lastFault: FaultAsStruck | undefined = undefined
    let lastSpans: ReadonlyArray<string> = []
    const hooks = yield* makeScriptedHooks
    /** Runs `effect` as process `name`'s: the timers it arms inherit the label, so a race can pause them. */
    // Every log entry of either process, counted at the levels that report a failure (C3: "a flush
    // failure is logged"); fibers a call forks (timers, fires) inherit the logger.
    let failureLogs = 0
    const logger = handingLogger((entry) => {
      if (FAILURE_LOG_LEVELS.includes(entry.level)) failureLogs = Math.min(failureLogs + 1, Number.MAX_SAFE_INTEGER)
    })
    const as = <A, E, R>(name: ProcessName, effect: Effect.Effect<A, E, R>) => withScriptedHooks(hooks, labelled(name, withLogsTo(effect, logger)))
    const overlap = yield* overlapConnections(environment)

    /**
     * While a race's advance runs, every outermost transaction of either process reaches the race
     * points under its process's label (`race.ts`): before it begins (counted by no probe, so the rest
     * can go quiet while one is held there) and before it commits (the boundary's point).
     */
    let racePointsOn = false
    const beforeBegin = () => (racePointsOn ? hooks.service.at(BEFORE_BEGIN_POINT) : Effect.void)
    const withRacePoints = <A, E, R>(advance: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      withBeginPoints(withBoundaryPoints(boundary, everyOperationsBeforeCommit(hooks), withBoundaryPoints(boundaryB, everyOperationsBeforeCommit(hooks), advance)))

    /** `effect` with every outermost transaction's point before BEGIN reaching the scripted controller. */
    const withBeginPoints = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        racePointsOn = true
        return effect
      }).pipe(Effect.ensuring(Effect.sync(() => {
        racePointsOn = false
      })))

    const build = (name: ProcessName, client: SqlClient.SqlClient) =>
      Effect.gen(function*() {
        const probe = makeTransactionProbe(client, beforeBegin)
        const scope = yield* Scope.make()
        const { journal, controls } = yield* makeHarnessJournal(probe.sql, dialect, shared)
        const service = yield* implementation.make({
          sql: probe.sql,
          dialect: environment.dialect,
          journal,
          runs: { waiting: (executionId) => Effect.sync(() => Option.fromNullishOr(waiting.get(executionId))) },
          owner: `process-${name}`,
          journalSource: SOURCE,
          scheduleResume: (_flowName, executionId, reason, sourceId) =>
            Effect.sync(() => {
              resumes.push({ process: name, executionId, reason, sourceId: sourceId ?? null, step: currentStep })
            })
        }).pipe(Scope.provide(scope))
        const process: Process = { scope, service, probe, controls }
        return process
      }).pipe(Effect.mapError(harnessError(`building process ${name} of ${implementation.name}`)))

    let processA = yield* build("A", boundary.sql)
    let processB: Process | undefined
    const probes = () => (processB === undefined ? [processA.probe] : [processA.probe, processB.probe])
    /** Settles until `target` resumes are logged (at most `MAX_SETTLE_TURNS` turns more). */
    const settleToResumes = (target: number) => settleUntil(probes(), () => resumes.length >= target)

    /**
     * `name` dies and starts again with its registration sweep, under `faults` when given (a generated
     * restart's recovery may itself crash: then it restarts once more, unfaulted, as the model does);
     * the sweep's outcome is the restart's result. Its settle waits for `resumeTarget` resumes.
     */
    const restart = (name: ProcessName, resumeTarget: number, faults?: FaultedCommand): Effect.Effect<Json, HarnessError> =>
      Effect.gen(function*() {
        const bound = boundaryOf(name)
        const old = name === "A" ? processA : processB
        if (old !== undefined) yield* Scope.close(old.scope, Exit.void)
        bound.arm(undefined)
        const fresh = yield* build(name, bound.sql)
        if (name === "A") processA = fresh
        else processB = fresh
        bound.arm(faults?.fault)
        fresh.controls.arm(faults?.journalFault, faults?.journalOutageEmits)
        const swept = yield* bound.run(Effect.as(Effect.tap(as(name, fresh.service.sweepDue(FLOW)), () => Effect.suspend(() => settleToResumes(resumeTarget))), null as Json))
        if (faults?.fault !== undefined) lastFault = faultAsStruck(faults.fault, bound, "restart")
        bound.arm(undefined)
        fresh.controls.arm(undefined)
        if (swept._tag === "Crashed") yield* restart(name, resumeTarget)
        return resultJson(swept, errorName)
      })

    const processOf = (name: ProcessName) =>
      Effect.gen(function*() {
        if (name === "A") return processA
        if (processB === undefined) processB = yield* build("B", boundaryB.sql)
        return processB
      })

    /** Both processes as they stand now, building process B on first use. */
    const bothProcesses = Effect.suspend(() => Effect.map(processOf("B"), (processB): Record<ProcessName, Process> => ({ A: processA, B: processB })))
    /** Both processes' services, building process B on first use. */
    const bothServices = Effect.map(bothProcesses, (both) => ({ A: both.A.service, B: both.B.service }))

    /** Quiet for as long as late work is given: `MAX_SETTLE_TURNS` turns more after the first quiet one. */
    const patience = Effect.suspend(() => Effect.asVoid(settleUntil(probes(), () => false)))
    const raceContext: RaceContext = { hooks, settle: Effect.suspend(() => quietNow()), patience, overlap }
    const quietNow = () => Effect.asVoid(settle(probes()))

    /**
     * Walks virtual time through `waypointsMs` to `targetMs`, settling after each (up to its entry of
     * `targets`), running `race` at its instant.
     */
    const advanceThrough = (waypointsMs: ReadonlyArray<number>, targetMs: number, race: AppliedRace | null, targets: ReadonlyArray<WaypointTarget>) =>
      Effect.gen(function*() {
        let stage: "armed" | "held" | "done" = race === null ? "done" : "armed"
        for (const [index, instant] of [...waypointsMs, targetMs].entries()) {
          const now = yield* nowMs
          const racing = stage === "armed" && race !== null && instant === race.atMs
          if (racing) yield* armRace(hooks)
          yield* advanceByMs(Math.max(0, instant - now))
          if (racing) {
            lastRace = yield* runRace(raceContext, race)
            stage = lastRace.held ? "held" : "done"
            if (stage === "held") continue
          }
          // Up to the fires the model expects by this instant (a fire may start turns late), then quiet.
          // Not while a race holds fires (they wait for their release, not for time).
          const target = stage === "held" ? undefined : targets[index]
          yield* target === undefined ? quietNow() : Effect.asVoid(settleUntil(probes(), () => resumes.length >= target.resumes && processA.probe.started() >= target.startedA))
          if (stage === "held" && race !== null && instant >= race.atMs + race.lagMs) {
            yield* releaseHeld(raceContext, race)
            stage = "done"
          }
        }
        if (stage === "held" && race !== null) yield* releaseHeld(raceContext, race)
      })

    /**
     * `call`, during which run `exec` stops waiting as the call's first storage transaction begins
     * (the storage boundary's point after BEGIN, before the body): C6's check, made in that transaction,
     * sees it not waiting. A call that begins no transaction never reaches the point; the run then stops
     * waiting once the call returned, and `lastWaitingStop` says so.
     */
    const stopWaitingAtBegin = <A, E, R>(exec: string, call: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        let stoppedAtBegin = false
        const stop = Effect.sync(() => {
          if (stoppedAtBegin) return
          stoppedAtBegin = true
          waiting.delete(exec)
        })
        return withBoundaryPoints(boundary, { afterBegin: stop }, call).pipe(Effect.ensuring(Effect.sync(() => {
          lastWaitingStop = stoppedAtBegin ? "atBegin" : "after"
          waiting.delete(exec)
        })))
      })

    const callOf = (command: FaultedCommand, waypointsMs: ReadonlyArray<number>, race: AppliedRace | null, targets: ReadonlyArray<WaypointTarget>): Effect.Effect<Json, unknown> =>
      Effect.gen(function*() {
        const service = processA.service
        switch (command.op) {
          case "scheduleClock":
            yield* scheduleOn(service, command.exec, command.clock, command.durationMs)
            return null
          case "scheduleRace": {
            const services = yield* bothServices
            return yield* runScheduleRace({ hooks, boundaries: { A: boundary, B: boundaryB }, services, as, overlap }, command, (report) => {
              lastScheduleRace = report
            })
          }
          case "deferredDone":
            yield* service.deferredDone({
              flowName: FLOW,
              executionId: command.exec,
              deferredName: command.deferred,
              exit: { _tag: "Success", value: command.value },
              ...(command.metadata === undefined ? {} : { metadata: command.metadata })
            })
            return null
          case "deferredDoneIfWaiting": {
            const completion = service.deferredDoneIfWaiting({
              flowName: FLOW,
              executionId: command.exec,
              deferredName: command.deferred,
              exit: { _tag: "Success", value: command.value },
              reason: command.reason,
              token: command.token
            })
            return yield* command.stopsWaiting === "atBegin" ? stopWaitingAtBegin(command.exec, completion) : completion
          }
          case "deferredResult":
            return yield* readOn(service, command.exec, command.deferred)
          case "resultRace": {
            const processes = yield* bothProcesses
            const readAs = (name: ProcessName) => withLogsTo(readOn(processes[name].service, command.exec, command.deferred), logger)
            const lag = Effect.suspend(() => Effect.flatMap(nowMs, (startMs) => advanceThrough(waypointsMs, startMs + command.lagMs, null, targets)))
            // Held inside its transaction only where no timer fires during the lag: its connection is then needed by nothing else.
            const probeOf = (name: ProcessName) => processes[name].probe
            const context = { hooks, readAs, as, lag, withBeginPoints, overlap: waypointsMs.length === 0 ? overlap : undefined, probeOf }
            return yield* runResultRace(context, command, (report) => {
              lastResultRace = report
            })
          }
          case "sweep":
            yield* as(command.process, (yield* processOf(command.process)).service.sweepDue(command.withFlow ? (command.flow ?? FLOW) : undefined))
            return null
          case "advance":
            yield* advanceThrough(waypointsMs, (yield* nowMs) + command.ms, race, targets).pipe(
              // A race's fires pause at the boundary's points too, for an engine without hook points (`race.ts`).
              (advance) => (race === null ? advance : withRacePoints(advance))
            )
            return null
          case "effect":
            return yield* service.withEffectBoundary(
              effectDescriptor(command.exec, command.attempt),
              Effect.suspend(() => {
                effectRuns++
                return command.fails ? Effect.fail(new ScriptedEffectError()) : Effect.succeed(effectOutput(command.attempt, effectRuns))
              })
            )
          default:
            return yield* Effect.die(new Error(`command ${command.op} has no implementation call`))
        }
      })

    /** Commands the harness performs itself. */
    const harnessCommand = (command: FaultedCommand) =>
      Effect.gen(function*() {
        switch (command.op) {
          case "setWaiting":
            waiting.set(command.exec, { reason: command.reason, token: command.token })
            return
          case "clearWaiting":
            waiting.delete(command.exec)
            return
          case "latchLossy":
            processA.controls.latch()
            return
          case "rewind":
            return yield* rewind(database.sql, command.exec, command.deferred, command.keepRecords)
        }
      })

    const call = (command: FaultedCommand, step: number, waypointsMs: ReadonlyArray<number>, race: AppliedRace | null = null, expected: ExpectedFires = NO_FIRES) =>
      Effect.gen(function*() {
        currentStep = step
        const resumeTarget = resumes.length + expected.resumes
        const targets = waypointTargetsOf(expected, resumes.length, processA.probe.started())
        lastRace = null
        lastScheduleRace = null
        lastResultRace = null
        lastWaitingStop = null
        lastFault = undefined
        lastSpans = []
        if (command.op === "restart") return yield* restart("A", resumeTarget, command)
        if (command.op === "setWaiting" || command.op === "clearWaiting" || command.op === "latchLossy" || command.op === "rewind") {
          const done = yield* harnessCommand(command).pipe(Effect.mapError(harnessError(`the harness command ${command.op}`)))
          return done ?? ({ _tag: "Success", value: null } as Json)
        }
        // The faults strike the process the command runs on: B's own sweeps, A otherwise.
        const target: ProcessName = command.op === "sweep" ? command.process : "A"
        const bound = boundaryOf(target)
        const controls = (yield* processOf(target).pipe(Effect.mapError(harnessError("building process B")))).controls
        bound.arm(command.fault)
        controls.arm(command.journalFault, command.journalOutageEmits)
        const spans = makeSpanRecorder()
        const outcome = yield* bound.run(Effect.tap(as("A", spans.record(callOf(command, waypointsMs, race, targets))), () => Effect.suspend(() => settleToResumes(resumeTarget))))
        lastSpans = spans.names()
        if (command.fault !== undefined) lastFault = faultAsStruck(command.fault, bound, command.op)
        bound.arm(undefined)
        controls.arm(undefined)
        const result = resultJson(
          outcome._tag === "Completed" && Exit.isSuccess(outcome.exit) ? { _tag: "Completed", exit: Exit.succeed(outcome.exit.value as Json) } : outcome,
          (error) => errorName(error)
        )
        if (outcome._tag === "Crashed") yield* restart(target, resumeTarget)
        return result
      })

    const advanceQuietly = (ms: number, step: number) =>
      Effect.gen(function*() {
        currentStep = step
        const before = activityNow()
        yield* advanceByMs(ms)
        yield* quietNow()
        // Only a round that looks quiet waits for late work: a busy one is followed by another round anyway.
        if (activityNow() === before) yield* settleUntil(probes(), () => activityNow() > before, LATE_WORK_TURNS_PER_QUIET_ROUND)
        return activityNow() - before
      })

    const activityNow = () => probes().reduce((sum, probe) => sum + probe.started(), 0) + resumes.length

    return {
      boundary,
      call,
      lastRace: () => lastRace,
      lastScheduleRace: () => lastScheduleRace,
      lastResultRace: () => lastResultRace,
      lastWaitingStop: () => lastWaitingStop,
      lastFault: () => lastFault,
      lastSpans: () => lastSpans,
      advanceQuietly,
      resumeLog: () => resumes,
      activity: activityNow,
      lossyRecords: () => shared.lossy,
      nonJsonRecordParts: () => shared.nonJson,
      announcedRecords: () => shared.announced,
      effectRuns: () => effectRuns,
      flushFailures: () => shared.flushFailures,
      failureLogs: () => failureLogs
    }
  })

/**
 * The observer connection and the two processes' backend ids, where the engine has independent
 * connections and row locks and the run opened a third connection; otherwise undefined.
 */
const overlapConnections = (environment: ExecutionEnvironment): Effect.Effect<OverlapConnections | undefined, HarnessError> =>
  Effect.gen(function*() {
    const [a, b, observer] = environment.database.connections
    if (!environment.capabilities.independentConnections || !environment.capabilities.rowLocks || a === undefined || b === undefined || observer === undefined) {
      return undefined
    }
    return { observer, pids: { A: yield* backendPidOf(a), B: yield* backendPidOf(b) } }
  }).pipe(Effect.mapError(harnessError("reading the backend ids of the racing connections")))

/** The harness's rewind: drops a completion row and, unless `keepRecords`, its records (time travel's truncation). */
const rewind = (sql: SqlClient.SqlClient, exec: string, deferred: string, keepRecords: boolean) =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM engine_deferreds WHERE flow_name = ${FLOW} AND execution_id = ${exec} AND deferred_name = ${deferred}`
    if (keepRecords) return
    const key = JSON.stringify([FLOW, exec, deferred])
    for (const sourceId of [`${SOURCE}:deferred:${key}`, `${SOURCE}:deferred-consumed:${key}`]) {
      yield* sql`DELETE FROM journal_events WHERE run_id = ${exec} AND source_id = ${sourceId} AND source_seq = 0`
    }
  })

export { Cause }
