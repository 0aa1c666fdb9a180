/**
 * `alarms/race`: the alarms subject's concurrent property. Each scenario writes a few due rows, then
 * runs one `processDueAlarms` batch with an external call racing it (`raceDispatch.ts`: at a hook point
 * between the batch's transactions, after the call, or where a generated uniform or PCT step schedule
 * puts it, `ALARMS_RACE_INTERLEAVING`), and optionally a lock race (`raceLock.ts`: two scheduler
 * instances on separate connections, truly concurrent transactions where the adapter has independent
 * connections and row locks). The model is told where the racer's write landed and predicts the batch's
 * result, every row's status, the platform alarm, the park reports and the racer's own result.
 */
import { Effect, type Scope } from "effect"
import { type Check, type ExecutedStep, runModelBased } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import { pctSituation } from "../../harness/PctBound.ts"
import type { ExecutionEnvironment, ExecutionTrace, Json } from "../../harness/Property.ts"
import { pctDepth } from "../../harness/StepSchedule.ts"
import { nowMs } from "../../harness/VirtualClock.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { alarmsModel, type ModelState, type Operation, RACER_RULES, type StepOutcome, storageIdOf } from "../../models/alarms/index.ts"
import { alarmsAttributor } from "../../spec/alarms.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { byWakeThenStorageId } from "../../models/alarms/state.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { requirementsOfSituations } from "./attribution.ts"
import { expectedJson, modelOperation, refKey, withoutReasons } from "./commands.ts"
import { runMutation } from "./driver.ts"
import { type DispatchRaceRun, dispatchOperation, handlerEntries, landingJson, landingWords, raceCheck, type RaceLanding, racerCommand, runDispatchRace } from "./raceDispatch.ts"
import { LOCK_RACE_RULES, runLockRace } from "./raceLock.ts"
import { type LockRaceSpec, type RacePlacement, RACE_REPEAT_MS, type RaceRowSpec, racerMutation, type RaceScenario } from "./raceScenario.ts"
import { exitJson, type RaceObservation, type RaceSession, openRaceSession } from "./raceSession.ts"
import { modelStatuses } from "./session.ts"
import type { MutationSpec } from "./scenario.ts"
import { toModelMutation } from "./scenario.ts"

/** The requirement a race within the batch credits (an external call during a handler pass). */
export const DISPATCH_RACE_REQUIREMENT = "ALM-052"
/** The requirement a lock race observed waiting credits (needs independent connections and row locks). */
export const LOCK_RACE_REQUIREMENT = "ALM-053"

type RaceCommand = { readonly op: "setup"; readonly row: RaceRowSpec } | { readonly op: "race" } | { readonly op: "lock"; readonly lock: LockRaceSpec }

const setupMutation = (row: RaceRowSpec): MutationSpec => ({
  kind: "scheduleAlarm",
  input: { ...VALID_REFS[row.ref]!, payload: { row: row.ref }, runInMs: row.runInMs, ...(row.repeat ? { repeatEveryMs: RACE_REPEAT_MS } : {}) }
})

const predicted = (outcome: StepOutcome, observable: string): Json => outcome.predictions.find((prediction) => prediction.observable === observable)?.expected ?? null

/** Checks of every status and the platform alarm against the model, with `rules`. */
const stateChecks = (model: ModelState, observed: RaceObservation, rules: ReadonlyArray<string>, why: string): ReadonlyArray<Check> => {
  const expected = modelStatuses(model)
  return [
    ...VALID_REFS.map((ref) => ({ observable: `getAlarmStatus(${refKey(ref)})`, expected: expected[refKey(ref)]!, actual: observed.statuses[refKey(ref)]!, rules, why })),
    { observable: "platform alarm", expected: model.platformAlarmMs, actual: observed.platformAlarmMs, rules, why: `${why}; the platform alarm is the smallest wake after the last commit (R6, R26)` }
  ]
}

/** The model's side of a dispatch race, for where the racer landed. */
const predictDispatchRace = (model: ModelState, dispatch: Extract<Operation, { kind: "processDueAlarms" }>, racer: MutationSpec, landing: RaceLanding, atMs: number) => {
  const racerOperation = modelOperation(racerCommand(racer), atMs)!
  if (landing.kind === "at") {
    const outcome = alarmsModel.step(model, { ...dispatch, racer: { mutation: toModelMutation(racer, atMs), point: landing.point, occurrence: landing.occurrence } })
    const racing = predicted(outcome, "racer") as { readonly result: Json; readonly ranAt: Json }
    return { state: outcome.state, dispatch: outcome, racerResult: racing.result, ranAt: racing.ranAt, reports: predicted(outcome, "reporterCalls"), situations: outcome.situations }
  }
  const [firstOp, secondOp] = landing.kind === "before" ? [racerOperation, dispatch] : [dispatch, racerOperation]
  const first = alarmsModel.step(model, firstOp)
  const second = alarmsModel.step(first.state, secondOp)
  const [racerOutcome, dispatchOutcome] = landing.kind === "before" ? [first, second] : [second, first]
  const reports = [...(predicted(first, "reporterCalls") as ReadonlyArray<Json>), ...(predicted(second, "reporterCalls") as ReadonlyArray<Json>)]
  return { state: second.state, dispatch: dispatchOutcome, racerResult: toJson(racerOutcome.result), ranAt: landing.kind as Json, reports: reports as Json, situations: [...first.situations, ...second.situations] }
}

/**
 * The scenario aimed at the batch the model expects: a hook placement's occurrence is taken modulo the
 * rows that meet its point (the n-th due row in dispatch order; the n-th succeeding or failing row at
 * the acknowledgement and failure points), and a `current` racer aims at the row the batch is at there
 * (for a schedule or `after`: the first failing row, else the first due row). The model still decides
 * whether the batch reaches the point.
 */
export const aimed = (scenario: RaceScenario, model: ModelState, atMs: number): { readonly ref: number; readonly placement: RacePlacement } => {
  const refOf = (storageId: string) => VALID_REFS.findIndex((ref) => storageIdOf(ref) === storageId)
  const due = Object.values(model.rows).filter((row) => row.wakeAtMs <= atMs).sort(byWakeThenStorageId).map((row) => refOf(row.storageId))
  const fails = (ref: number) => scenario.handlers.find((handler) => handler.ref === ref)?.fail === true
  const failing = due.filter(fails)
  const placement = scenario.placement
  const target = scenario.racer.target
  if (placement.mode !== "hook") return { ref: target !== "current" ? target : failing[0] ?? due[0] ?? 0, placement }
  const among = placement.point === "afterAcknowledge" ? due.filter((ref) => !fails(ref))
    : placement.point === "beforeFailureWrite" || placement.point === "afterFailureCommit" ? failing
    : placement.point === "afterSelectDue" ? due.slice(0, 1)
    : due
  const occurrence = among.length === 0 ? placement.occurrence : placement.occurrence % among.length
  return { ref: target !== "current" ? target : among[occurrence] ?? due[0] ?? 0, placement: { ...placement, occurrence } }
}

/** The dispatch race step: run, observe, predict, compare. */
const dispatchRaceStep = (session: RaceSession, scenario: RaceScenario, model: ModelState, atMs: number) =>
  Effect.gen(function*() {
    const handlers = handlerEntries(scenario.handlers)
    const aim = aimed(scenario, model, atMs)
    const racer = racerMutation(scenario.racer, aim.ref)
    const placement = aim.placement
    const raced: DispatchRaceRun = yield* runDispatchRace(session, handlers, racer, atMs, placement)
    const reports = session.takeReports()
    const observed = yield* session.observe
    // The model is told where the racer's write really landed: a batch that never paused there (no such
    // hook point: hook points are optional, or fewer rows) had the racer run after it.
    const told: RaceLanding = raced.landing
    const prediction = predictDispatchRace(model, dispatchOperation(handlers, atMs), racer, told, atMs)
    const why = `the external ${racer.kind} landed ${landingWords(raced.landing)}: ${prediction.dispatch.why}`
    const checks: ReadonlyArray<Check> = [
      raceCheck("processDueAlarms result", toJson(prediction.dispatch.result), raced.dispatch, why),
      ...stateChecks(prediction.state, observed, RACER_RULES, why),
      raceCheck("reporter calls", prediction.reports, [...reports], "a park report re-reads its row after commit and is skipped when the racer cancelled or replaced it (R27)"),
      raceCheck(`racing ${racer.kind} result`, prediction.racerResult, raced.racer, "an external call is not in the pass: no source, R11 applies"),
      raceCheck("where the racer landed", prediction.ranAt, landingJson(raced.landing), "the batch reaches the same hook points as the model's batch")
    ]
    const schedule = placement.mode === "scheduled" ? placement.schedule : undefined
    const within = raced.landing.kind === "at" && prediction.ranAt === raced.landing.point
    const executed: ExecutedStep = {
      record: {
        operation: "race",
        args: toJson({ handlers, racer, placement, ...(raced.steps === undefined ? {} : { steps: raced.steps }) }),
        virtualTimeMs: atMs,
        implementation: { dispatch: raced.dispatch, racer: raced.racer, ranAt: landingJson(raced.landing) },
        model: { dispatch: expectedJson(prediction.dispatch.result), racer: withoutReasons(prediction.racerResult), ranAt: prediction.ranAt },
        implementationState: { platformAlarmMs: observed.platformAlarmMs, statuses: observed.statuses, reporterCalls: [...reports] },
        modelState: { platformAlarmMs: prediction.state.platformAlarmMs, statuses: modelStatuses(prediction.state), reporterCalls: prediction.reports }
      },
      checks,
      covered: [...requirementsOfSituations(prediction.situations), ...(within ? [DISPATCH_RACE_REQUIREMENT] : [])],
      situations: [...prediction.situations, ...(schedule?.strategy === "pct" ? [pctSituation(pctDepth(schedule))] : [])],
      described: `processDueAlarms raced by an external ${racer.kind} (${landingWords(raced.landing)})`
    }
    return { executed, state: prediction.state }
  })

/** The lock race step. */
const lockRaceStep = (session: RaceSession, environment: ExecutionEnvironment, lock: LockRaceSpec, model: ModelState, atMs: number) =>
  Effect.gen(function*() {
    const raced = yield* runLockRace(session, lock, atMs, environment.database.connections)
    const observed = yield* session.observe
    const first = alarmsModel.step(model, modelOperation(racerCommand(lock.first), atMs)!)
    const second = alarmsModel.step(first.state, modelOperation(racerCommand(lock.second), atMs)!)
    const concurrent = raced.blocked !== undefined
    const rules = concurrent ? LOCK_RACE_RULES : ["R4"]
    const why = concurrent
      ? `the first transaction held the transaction lock at ${raced.heldAt ?? lock.hook}, so the second waited and ran after its commit (serial order)`
      : "the two calls ran one after the other"
    const checks: Array<Check> = [
      ...stateChecks(second.state, observed, rules, why),
      { observable: `first ${lock.first.kind} result`, expected: expectedJson(first.result), actual: raced.first, rules, why },
      { observable: `second ${lock.second.kind} result`, expected: expectedJson(second.result), actual: raced.second, rules, why }
    ]
    if (concurrent) checks.push({ observable: "transaction lock wait (pg_blocking_pids)", expected: true, actual: raced.blocked, rules, why: "every scheduler transaction takes the transaction lock first, so a second transaction on another connection waits for the first to commit" })
    const executed: ExecutedStep = {
      record: {
        operation: "lockRace",
        args: toJson(lock),
        virtualTimeMs: atMs,
        implementation: { first: raced.first, second: raced.second, ...(concurrent ? { blocked: raced.blocked! } : {}) },
        model: { first: expectedJson(first.result), second: expectedJson(second.result), ...(concurrent ? { blocked: true } : {}) },
        implementationState: { platformAlarmMs: observed.platformAlarmMs, statuses: observed.statuses },
        modelState: { platformAlarmMs: second.state.platformAlarmMs, statuses: modelStatuses(second.state) }
      },
      checks,
      covered: [...requirementsOfSituations([...first.situations, ...second.situations]), ...(raced.blocked === true ? [LOCK_RACE_REQUIREMENT] : [])],
      situations: [...first.situations, ...second.situations],
      described: `${lock.first.kind} paused at ${raced.heldAt ?? lock.hook} inside its transaction while a second scheduler ran ${lock.second.kind}${concurrent ? " on another connection" : " after it"}`
    }
    return { executed, state: second.state }
  })

/** A setup schedule of a due row. */
const setupStep = (session: RaceSession, row: RaceRowSpec, model: ModelState, atMs: number) =>
  Effect.gen(function*() {
    const mutation = setupMutation(row)
    const exit = yield* Effect.exit(session.provide(runMutation(session.scheduler, mutation, atMs)))
    session.takeReports()
    const observed = yield* session.observe
    const outcome = alarmsModel.step(model, modelOperation(racerCommand(mutation), atMs)!)
    const actual = exitJson(exit, () => null)
    const executed: ExecutedStep = {
      record: { operation: "scheduleAlarm", args: toJson(mutation), virtualTimeMs: atMs, implementation: actual, model: expectedJson(outcome.result) },
      checks: [
        { observable: "result", expected: expectedJson(outcome.result), actual, rules: outcome.rules, why: outcome.why },
        ...stateChecks(outcome.state, observed, ["R28", ...outcome.rules], outcome.why)
      ],
      covered: requirementsOfSituations(outcome.situations),
      situations: outcome.situations,
      described: alarmsModel.describeOperation(modelOperation(racerCommand(mutation), atMs)!)
    }
    return { executed, state: outcome.state }
  })

/**
 * Builds the `execute` of `alarms/race` bound to `implementation`.
 *
 * @example const execute = executeAlarmsRace(shippedAlarms)
 */
export const executeAlarmsRace = (implementation: AlarmsImplementation) =>
(scenario: RaceScenario, environment: ExecutionEnvironment): Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const database = environment.database
    const capabilities = environment.capabilities
    const concurrent = capabilities.independentConnections && capabilities.rowLocks && database.connections.length >= 3
    const session = yield* openRaceSession(implementation, database, environment.dialect, scenario.budget, capabilities, concurrent)
    let model = alarmsModel.init({ configuration: { unchangedAttemptBudget: scenario.budget }, legacyRows: [] })
    const commands: ReadonlyArray<RaceCommand> = [
      ...scenario.rows.map((row) => ({ op: "setup" as const, row })),
      { op: "race" },
      ...(scenario.lock === undefined ? [] : [{ op: "lock" as const, lock: scenario.lock }])
    ]
    return yield* runModelBased<RaceCommand>({
      maxCommands: commands.length,
      attributor: alarmsAttributor,
      requirements: environment.requirements,
      step: (command) =>
        Effect.gen(function*() {
          const atMs = yield* nowMs
          if (command.op === "setup") {
            const done = yield* setupStep(session, command.row, model, atMs)
            model = done.state
            return done.executed
          }
          const done = command.op === "race"
            ? yield* dispatchRaceStep(session, scenario, model, atMs)
            : yield* lockRaceStep(session, environment, command.lock, model, atMs)
          model = done.state
          return done.executed
        })
    }, commands)
  })

