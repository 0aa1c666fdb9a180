/**
 * The implementation side of one alarms scenario: the scheduler built over the harness's storage
 * boundary, the configuration and reporter references it reads (upstream's keys), each command
 * mapped to its call, and what is observed after it. A crash reached anywhere in a call (including a
 * fiber a handler forked) ends the call from outside; the session then rebuilds the scheduler from
 * storage, as a restarted process would.
 */
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import type { Dialect, IsolatedDatabase } from "../../adapters/contract.ts"
import { resultJson } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import { says } from "../../harness/ErrorText.ts"
import { CALL_PHASE, OBSERVE_PHASE, timedImplementationCall, timedPhase } from "../../harness/Profiler.ts"
import type { Json } from "../../harness/Property.ts"
import { makeSpanRecorder } from "../../harness/SpanRecorder.ts"
import { type BoundaryOptions, makeStorageBoundary, type StorageBoundary } from "../../harness/StorageBoundary.ts"
import { HarnessError, OWN_STATEMENT_HINT, ownWorkFailure } from "../../harness/errors.ts"
import { type ModelState, type ScheduleConfigurationInput, statusOf, storageIdOf, type TransactionFault } from "../../models/alarms/index.ts"
import { VALID_REFS } from "./arbitraries.ts"
import type { AlarmReporterFn, AlarmScheduler, AlarmsImplementation } from "../../subjects/alarms/api.ts"
import type { ObservedState } from "./checks.ts"
import { refKey } from "./commands.ts"
import {
  dispatchJson,
  dispatchOptions,
  errorTag,
  type ForkedWrite,
  parkedReportJson,
  runMutation,
  runScriptedTransaction,
  scriptedDispatch,
  statusJson,
  toImplementationConfiguration
} from "./driver.ts"
import type { Command, RefSpec } from "./scenario.ts"
import { plainRef } from "./scenario.ts"
import { withDefaultReporter } from "./defaultReporter.ts"
import { readStoredAlarms } from "./storedState.ts"
import { UpstreamAlarmReporter, UpstreamScheduleConfiguration } from "./upstreamReferences.ts"
import { typedHandler, typedScheduler } from "./typed.ts"

/** What the implementation did in one step. */
export interface CallRecord {
  /** `{_tag: "Success", value}`, `{_tag: "Failure", error}` or `{_tag: "Crashed", transaction, phase}`. */
  readonly result: Json
  /** Storage ids handed to the handler or `onFailure`, in call order. */
  readonly visits: ReadonlyArray<string>
  /** Outcomes of writes of fibers the handlers forked, released after the pass. */
  readonly forkedOutcomes: ReadonlyArray<Json>
  /** Reporter calls during the step. */
  readonly reporterCalls: ReadonlyArray<Json>
  /** The span names the call opened (`harness/SpanRecorder.ts`). */
  readonly spans: ReadonlyArray<string>
  /** Whether the call went through typed definitions (R29). */
  readonly typed: boolean
}

/** One scenario's implementation side. */
export interface AlarmsSession {
  readonly boundary: StorageBoundary
  /** Runs one command (not a clock command) with its fault armed; rebuilds the scheduler after a crash. */
  readonly call: (command: Command, atMs: number) => Effect.Effect<CallRecord, HarnessError>
  /**
   * After a step: every alarm's stored status, `getAlarmStatus` of `apiRefs` (each alarm of the id
   * space at most once), and the platform alarm.
   */
  readonly observe: (apiRefs: ReadonlyArray<RefSpec>) => Effect.Effect<ObservedState, HarnessError>
}

/** The model's statuses of every alarm of the id space, keyed `tag:id` like the observed ones. */
export const modelStatuses = (model: ModelState): Record<string, Json> =>
  Object.fromEntries(VALID_REFS.map((ref) => [refKey(ref), toJson(statusOf(model, storageIdOf(ref)))]))

/**
 * `getAlarmStatus` of each of `refs` through `scheduler` (with `provide`'s references), keyed `tag:id`:
 * the status as the model writes it, or `{error}` with the failure's tag.
 */
export const readApiStatuses = (
  scheduler: AlarmScheduler,
  refs: ReadonlyArray<RefSpec>,
  provide: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, Json>> =>
  Effect.gen(function*() {
    const statuses: Record<string, Json> = {}
    for (const ref of refs) {
      const exit = yield* Effect.exit(provide(scheduler.getAlarmStatus(ref)))
      statuses[refKey(ref)] = Exit.isSuccess(exit) ? toJson(statusJson(exit.value)) : { error: errorTag(Cause.squash(exit.cause)) }
    }
    return statuses
  })

/** The `HarnessError` of an implementation whose `make` failed. */
export const buildFailure = (implementation: AlarmsImplementation) => (cause: unknown): HarnessError =>
  new HarnessError({
    message: `alarms implementation ${implementation.name} could not be built: ${String(cause)}`,
    hint: "the implementation's make failed; fix the implementation or the adapter",
    cause
  })

/** A failure of the adapter's database outside the implementation, as a `HarnessError` naming `what`. */
export const harnessError = ownWorkFailure("alarms", OWN_STATEMENT_HINT)

const SUCCESS_NULL: Json = { _tag: "Success", value: null }

/** R9's words for a schedule from a pass that has ended. */
const PASS_ENDED_WORDS = "cannot schedule detached work after their pass ends"

/** Releases the forked writes one by one, after the pass ended, and collects their outcomes. */
const releaseForked = (forked: ReadonlyArray<ForkedWrite>, outcomes: Array<Json>): Effect.Effect<void> =>
  Effect.forEach(forked, (write) =>
    Deferred.succeed(write.gate, undefined).pipe(
      Effect.andThen(Fiber.join(write.fiber)),
      Effect.map((exit) => {
        if (Exit.isSuccess(exit)) return outcomes.push({ ok: true, error: null, saysPassEnded: false })
        const error = Cause.squash(exit.cause)
        return outcomes.push({ ok: false, error: errorTag(error), saysPassEnded: says(error, PASS_ENDED_WORDS) })
      })
    ), { discard: true })

/**
 * The implementation call of a command, with the handler scripts' side records; through the typed
 * definitions when `knownTags` is given (R29).
 */
const callOf = (
  untyped: AlarmScheduler,
  knownTags: ReadonlyArray<string> | null,
  numberTags: ReadonlyArray<string>,
  command: Command,
  atMs: number,
  forked: Array<ForkedWrite>,
  visits: Array<string>
): Effect.Effect<Json, unknown> => {
  const scheduler = typedScheduler(untyped, knownTags, numberTags)
  switch (command.op) {
    case "schedule":
      return Effect.as(runMutation(scheduler, { kind: command.earlier === true ? "scheduleAlarmEarlier" : "scheduleAlarm", input: command.input }, atMs), null)
    case "cancel":
      return Effect.as(runMutation(scheduler, { kind: "cancelAlarm", ref: command.ref }, atMs), null)
    case "status":
      return Effect.map(scheduler.getAlarmStatus(plainRef(command.ref)), (status) => toJson(statusJson(status)))
    case "transaction":
      return Effect.map(runScriptedTransaction(scheduler, command.mutations, command.closureFails === true, atMs), toJson)
    case "dispatch":
      return Effect.suspend(() => {
        const scripted = scriptedDispatch(scheduler, command.handlers, atMs, forked, visits)
        return Effect.map(scheduler.processDueAlarms(typedHandler(scripted.handle, knownTags, numberTags), dispatchOptions(command.options, scripted.onFailure)), dispatchJson)
      })
    default:
      return Effect.die(new Error(`command ${command.op} has no implementation call`))
  }
}

/**
 * The alarms boundary counts and faults transactions only, not writes outside one. Upstream (and the
 * shipped scheduler) migrate the tables (R3) outside any transaction at the start of `processDueAlarms`
 * and `getAlarmStatus`, and its backfill is such a write; R3 says only that the migration is atomic
 * when run in a transaction, so the model gives a fault striking that backfill no meaning yet. The cost:
 * a scheduler that ran its dispatch writes auto-committed would meet no storage fault there. Reads
 * outside a transaction are still seen, so a `readFails` fault can fail one (the appended `readFault`
 * unit, `appended.ts`).
 */
export const ALARMS_BOUNDARY: BoundaryOptions = { autoCommittedWrites: false }

/**
 * Opens the session: builds `implementation` over the boundary (with `configuration` as the ambient
 * reference) and returns the call and observe functions. Until a `configure` command, a scenario
 * without a configuration provides no reference at all, as an application that never configures the
 * scheduler: upstream's reference then reads its default, all defaults (R1).
 */
export const openAlarmsSession = (
  implementation: AlarmsImplementation,
  database: IsolatedDatabase,
  dialect: Dialect,
  configuration: ScheduleConfigurationInput | undefined,
  initialKnownTags: ReadonlyArray<string> | null = null
): Effect.Effect<AlarmsSession, HarnessError> =>
  Effect.gen(function*() {
    /** The typed definitions the current process declares (R29), null when untyped. */
    let knownTags = initialKnownTags
    /** Known tags whose payload schema the current process narrowed to numbers. */
    let numberTags: ReadonlyArray<string> = []
    // Faults reach the implementation only through this boundary: its client and its platform alarm.
    const boundary = makeStorageBoundary(database.sql, database.platformAlarm, ALARMS_BOUNDARY)
    let ambient = configuration
    let reporterCalls: Array<Json> = []
    let reporterFails = false
    const reporter: AlarmReporterFn = (event) =>
      Effect.suspend(() => {
        reporterCalls.push(parkedReportJson(event))
        return reporterFails ? Effect.die(new Error("scripted reporter failure")) : Effect.void
      })
    let defaultReporter = false
    // Without a reporter (R27's default), the implementation's warnings are the reporter calls.
    const provide = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.suspend(() => {
        const configured = ambient === undefined ? effect : Effect.provideService(effect, UpstreamScheduleConfiguration, toImplementationConfiguration(ambient))
        return defaultReporter ? withDefaultReporter(configured, reporterCalls) : Effect.provideService(configured, UpstreamAlarmReporter, reporter)
      })
    const build = Effect.suspend(() => {
      boundary.arm(undefined)
      return provide(implementation.make({ sql: boundary.sql, dialect, platformAlarm: boundary.platformAlarm }))
    }).pipe(
      Effect.mapError(buildFailure(implementation)),
      // A make that throws (for instance reading a context reference that has no default) is a build failure too.
      Effect.catchDefect((defect) => Effect.fail(buildFailure(implementation)(defect)))
    )
    let scheduler = yield* build

    const callScheduler = (command: Command, atMs: number) =>
      Effect.gen(function*() {
        const forked: Array<ForkedWrite> = []
        const visits: Array<string> = []
        const forkedOutcomes: Array<Json> = []
        // One bounded run covers the call and the forked writes released after it.
        const spans = makeSpanRecorder()
        const outcome = yield* boundary.run(Effect.gen(function*() {
          const exit = yield* Effect.exit(timedImplementationCall(provide(spans.record(callOf(scheduler, knownTags, numberTags, command, atMs, forked, visits)))))
          yield* releaseForked(forked, forkedOutcomes)
          return yield* exit
        }))
        // Forked fibers still waiting for their release belong to the dead process.
        for (const write of forked) yield* Fiber.interrupt(write.fiber)
        const result = resultJson(outcome, errorTag)
        // The process died: the harness restarts the service from storage.
        if (outcome._tag === "Crashed") scheduler = yield* build
        return { result, visits, forkedOutcomes: outcome._tag === "Crashed" ? [] : forkedOutcomes, spans: spans.names(), typed: knownTags !== null }
      })

    const call = (command: Command, atMs: number): Effect.Effect<CallRecord, HarnessError> =>
      timedPhase(CALL_PHASE, Effect.gen(function*() {
        boundary.arm("fault" in command ? (command.fault as TransactionFault | undefined) : undefined)
        reporterCalls = []
        reporterFails = "reporterFails" in command && command.reporterFails === true
        defaultReporter = command.op === "dispatch" && command.defaultReporter === true
        if (command.op === "configure") {
          ambient = command.configuration
          return { result: SUCCESS_NULL, visits: [], forkedOutcomes: [], reporterCalls, spans: [], typed: knownTags !== null }
        }
        if (command.op === "restart") {
          if (command.knownTags !== undefined) {
            knownTags = command.knownTags
            numberTags = command.numberTags ?? []
          }
          scheduler = yield* timedImplementationCall(build)
          return { result: SUCCESS_NULL, visits: [], forkedOutcomes: [], reporterCalls, spans: [], typed: knownTags !== null }
        }
        const called = yield* callScheduler(command, atMs)
        return { ...called, reporterCalls }
      }))

    const observe = (apiRefs: ReadonlyArray<RefSpec>) => timedPhase(OBSERVE_PHASE, Effect.gen(function*() {
      boundary.arm(undefined)
      const stored = yield* readStoredAlarms(database.sql, dialect).pipe(Effect.mapError(harnessError("reading the alarm tables")))
      const statuses = yield* readApiStatuses(scheduler, apiRefs, provide)
      const platformAlarmMs = yield* database.platformAlarm.get.pipe(Effect.mapError(harnessError("reading the platform alarm")))
      return { statuses, storedStatuses: stored.statuses, storedContents: stored.contents, orphanAttempts: stored.orphanAttempts, platformAlarmMs }
    }))

    return { boundary, call, observe }
  })
