/**
 * Drives an `AlarmsImplementation` with scenario commands and normalizes what it did into the same
 * JSON shapes the model predicts (results with typed error tags, dispatch lists, forked-write outcomes,
 * statuses). Handler scripts become real handlers: standalone or transactional writes, a failure,
 * an `onFailure` action, and a write from a fiber the handler forked, released after the pass.
 */
import { Cause, DateTime, Deferred, Effect, Exit, Fiber } from "effect"
import type { Json } from "../../harness/Property.ts"
import { failureJson, type FailureJson } from "../../harness/ModelBased.ts"
import { errorShapeDefects, namedWithDefects } from "../../harness/ErrorShape.ts"
import type { AlarmStatus as ModelAlarmStatus, ScheduleConfigurationInput } from "../../models/alarms/index.ts"
import { storageIdOf, UNENCODABLE_PAYLOAD_KEY } from "../../models/alarms/index.ts"
import type {
  AlarmParked,
  AlarmEvent,
  AlarmPayload,
  AlarmScheduler,
  AlarmStatus,
  AlarmTransaction,
  OnFailureAction,
  ProcessDueAlarmsFailure,
  ProcessDueAlarmsOptions,
  ProcessDueAlarmsResult,
  ScheduleAlarmInput,
  ScheduleConfiguration
} from "../../subjects/alarms/api.ts"
import type { HandlerEntrySpec, HandlerWriteSpec, InputSpec, MutationSpec, RefSpec, TransactionMutationSpec } from "./scenario.ts"
import { ALARM_ERROR_FIELDS } from "./errorFields.ts"
import { plainRef } from "./scenario.ts"

/** The error a scripted transaction closure fails with (model: `ClosureFailure`). */
export class ScriptedClosureFailure {
  readonly _tag = "ClosureFailure"
}

/** The error a scripted `onFailure` fails with (model: `OnFailureFailure`). */
export class ScriptedOnFailureFailure {
  readonly _tag = "OnFailureFailure"
}

/** The error a scripted failing handler fails with. */
export class ScriptedHandlerFailure {
  readonly _tag = "ScriptedHandlerFailure"
}

/** The implementation's configuration reference for the model's configuration input. */
export const toImplementationConfiguration = (input: ScheduleConfigurationInput): ScheduleConfiguration => ({
  ...(input.minimumRetryDelayMs === undefined ? {} : { minimumRetryDelay: input.minimumRetryDelayMs }),
  ...(input.unchangedAttemptBudget === undefined ? {} : { unchangedAttemptBudget: input.unchangedAttemptBudget }),
  ...(input.parkedRetryDelayMs === undefined ? {} : { parkedRetryDelay: input.parkedRetryDelayMs }),
  ...(input.minimumRepeatIntervalMs === undefined ? {} : { minimumRepeatInterval: input.minimumRepeatIntervalMs })
})

/**
 * A value JSON cannot encode, by the marker's kind: a bigint (`JSON.stringify` throws), or one that
 * `JSON.stringify` accepts silently but that is not JSON (NaN, Infinity, a function, a Date, undefined).
 */
const unencodable = (kind: Json): unknown => {
  switch (kind) {
    case "nan":
      return Number.NaN
    case "infinity":
      return Number.POSITIVE_INFINITY
    case "function":
      return () => null
    case "date":
      return new Date(0)
    case "undefined":
      return undefined
    default:
      return BigInt(1)
  }
}

/** Replaces every object marked unencodable by a value JSON cannot encode (see `unencodable`). */
const toPayload = (payload: Json): AlarmPayload => {
  if (payload === null || typeof payload !== "object") return payload
  if (Array.isArray(payload)) return payload.map(toPayload)
  const record = payload as { readonly [key: string]: Json }
  if (Object.hasOwn(record, UNENCODABLE_PAYLOAD_KEY)) return unencodable(record[UNENCODABLE_PAYLOAD_KEY]!) as AlarmPayload
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, toPayload(value)]))
}

/** The implementation's schedule input for a spec at virtual time `nowMs`. */
export const toImplementationInput = (input: InputSpec, nowMs: number): ScheduleAlarmInput => ({
  tag: input.tag,
  id: input.id,
  payload: toPayload(input.payload),
  runAt: DateTime.makeUnsafe(nowMs + input.runInMs),
  ...(input.repeatEveryMs === undefined ? {} : { repeatEvery: input.repeatEveryMs }),
  ...(input.progress === undefined ? {} : { progress: input.progress })
})

/**
 * The `_tag` of a failed dispatch entry's error. The entry's `cause` is the failure's `Cause` (R22:
 * the handler's, or a decode failure's), so a raw error in its place is named as such.
 */
export const causeTagOf = (cause: unknown): string => {
  if (!Cause.isCause(cause)) return `not a Cause: ${tagOf(cause)}`
  const error = Cause.squash(cause)
  return namedWithDefects(tagOf(error), error, ALARM_ERROR_FIELDS)
}

const tagOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof (error as { _tag: unknown })._tag === "string"
    ? (error as { _tag: string })._tag
    : `untagged ${String(error)}`

/**
 * A typed error as the model names it: `{_tag}` (reasons are words, not compared), plus `defects` when
 * it lacks a field upstream's error carries (`errorFields.ts`), so it differs from the model's.
 */
export const errorTag = (error: unknown): Json => {
  const defects = errorShapeDefects(error, ALARM_ERROR_FIELDS)
  return defects.length === 0 ? { _tag: tagOf(error) } : { _tag: tagOf(error), defects: [...defects] }
}

/** Runs one mutation on a handle (scheduler or transaction handle). */
export const runMutation = (handle: AlarmTransaction, mutation: MutationSpec, nowMs: number): Effect.Effect<void, unknown> =>
  mutation.kind === "cancelAlarm"
    ? handle.cancelAlarm(plainRef(mutation.ref))
    : handle[mutation.kind](toImplementationInput(mutation.input, nowMs))

/** Outcome of one mutation inside a transaction closure, as the model lists it. */
export type MutationOutcome = { readonly _tag: "Success" } | FailureJson

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): MutationOutcome =>
  Exit.isSuccess(exit) ? { _tag: "Success" } : failureJson(exit.cause, errorTag)

/**
 * Runs an external `transaction` with scripted mutations: misused ones run from a forked fiber, or
 * through the escaped handle after the transaction ended; their failures are caught, like a closure
 * that logs and goes on. Returns the per-mutation outcomes in order.
 */
export const runScriptedTransaction = (
  scheduler: AlarmScheduler,
  mutations: ReadonlyArray<TransactionMutationSpec>,
  closureFails: boolean,
  nowMs: number
): Effect.Effect<{ readonly mutations: ReadonlyArray<MutationOutcome> }, unknown> =>
  Effect.gen(function*() {
    const outcomes: Array<MutationOutcome | null> = []
    const escaped: Array<{ readonly index: number; readonly mutation: MutationSpec }> = []
    let kept: AlarmTransaction | undefined
    yield* scheduler.transaction((handle) =>
      Effect.gen(function*() {
        kept = handle
        for (const mutation of mutations) {
          if (mutation.misuse === "forkedFiber") {
            const fiber = yield* Effect.forkChild(runMutation(handle, mutation, nowMs))
            outcomes.push(outcomeOf(yield* Effect.exit(Fiber.join(fiber))))
          } else if (mutation.misuse === "afterTransaction") {
            escaped.push({ index: outcomes.length, mutation })
            outcomes.push(null)
          } else {
            yield* runMutation(handle, mutation, nowMs)
            outcomes.push({ _tag: "Success" })
          }
        }
        if (closureFails) return yield* Effect.fail(new ScriptedClosureFailure())
      })
    )
    for (const { index, mutation } of escaped) {
      outcomes[index] = outcomeOf(yield* Effect.exit(runMutation(kept!, mutation, nowMs)))
    }
    return { mutations: outcomes.map((outcome) => outcome ?? { _tag: "Success" }) }
  })

/** A write a handler's forked fiber attempts once released (after `processDueAlarms` returned). */
export interface ForkedWrite {
  readonly gate: Deferred.Deferred<void>
  readonly fiber: Fiber.Fiber<Exit.Exit<void, unknown>>
}

const runHandlerWrite = (scheduler: AlarmScheduler, write: HandlerWriteSpec, nowMs: number): Effect.Effect<void, unknown> =>
  write.kind === "transaction"
    ? scheduler.transaction((handle) =>
      Effect.gen(function*() {
        for (const mutation of write.mutations) yield* runMutation(handle, mutation, nowMs)
        if (write.closureFails === true) return yield* Effect.fail(new ScriptedClosureFailure())
      })
    )
    : runMutation(scheduler, write, nowMs)

/**
 * The harness's own points in its scripted handler: at its start, and after its writes (before it
 * fails, when scripted to). The implementation calls the handler, so it cannot skip them: a race
 * placed there (`raceDispatch.ts`) holds for a scheduler without hook points. They stand for the
 * model's `beforeHandler` and `afterHandler` (nothing the scheduler does lies between them).
 */
export const HANDLER_START_POINT = "harness.handler.start"
/** See `HANDLER_START_POINT`. */
export const HANDLER_END_POINT = "harness.handler.end"

const entryFor = (handlers: ReadonlyArray<HandlerEntrySpec>, ref: RefSpec): HandlerEntrySpec | undefined =>
  handlers.find((entry) => entry.tag === ref.tag && entry.id === ref.id)

/**
 * The scripted handler and `onFailure` of one dispatch. Forked writes are collected in `forked`, in
 * the order handlers forked them; `visits` records the storage id of every handler and `onFailure`
 * call, so the dispatch order is observable even when the call fails.
 */
export const scriptedDispatch = (
  scheduler: AlarmScheduler,
  handlers: ReadonlyArray<HandlerEntrySpec>,
  nowMs: number,
  forked: Array<ForkedWrite>,
  visits: Array<string>,
  atHandlerPoint: (name: string) => Effect.Effect<void> = () => Effect.void
): {
  readonly handle: (event: AlarmEvent) => Effect.Effect<void, unknown>
  readonly onFailure: (failure: ProcessDueAlarmsFailure) => Effect.Effect<OnFailureAction | void, unknown>
} => ({
  handle: (event) =>
    Effect.gen(function*() {
      // A handler call without an event is recorded too (R22: an undecodable row never reaches the handler).
      visits.push(event === undefined ? "(the handler was called without an event)" : storageIdOf(event))
      const script = entryFor(handlers, event)?.script ?? {}
      yield* atHandlerPoint(HANDLER_START_POINT)
      if (script.forkedWrite !== undefined) {
        const write = script.forkedWrite
        const gate = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkDetach(
          Deferred.await(gate).pipe(Effect.andThen(runMutation(scheduler, write, nowMs)), Effect.exit)
        )
        forked.push({ gate, fiber })
      }
      for (const write of script.writes ?? []) yield* runHandlerWrite(scheduler, write, nowMs)
      yield* atHandlerPoint(HANDLER_END_POINT)
      if (script.outcome === "fail") return yield* Effect.fail(new ScriptedHandlerFailure())
    }),
  onFailure: (failure) => {
    visits.push(storageIdOf(failure))
    const action = entryFor(handlers, failure)?.script.onFailure ?? { kind: "none" as const }
    switch (action.kind) {
      case "none":
      case "returnsVoid":
        return Effect.void
      case "returnsNull":
        // Outside the static type (`OnFailureAction | void`): what a JavaScript caller may return.
        return Effect.succeed(null as unknown as OnFailureAction)
      case "unknownMode":
        // Outside the static type too: an object whose `mode` is neither action.
        return Effect.succeed({ mode: "postpone" } as unknown as OnFailureAction)
      case "retry":
        return Effect.succeed(action.objectForm === true ? { mode: "retry" as const } : "retry" as const)
      case "skipAndAdvanceRepeat":
        return Effect.succeed(action.objectForm === true ? { mode: "skip-and-advance-repeat" as const } : "skip-and-advance-repeat" as const)
      case "retryAfter":
        return Effect.succeed({ mode: "retry" as const, retryFailedAfter: action.retryFailedAfterMs })
      case "fails":
        return Effect.fail(new ScriptedOnFailureFailure())
    }
  }
})

/**
 * The dispatch options of a command with the scripted `onFailure`; with `withoutOnFailure` no callback
 * is passed, and when nothing else is either, no options object at all (`processDueAlarms(handler)`).
 */
export const dispatchOptions = (
  options: { readonly limit?: number; readonly retryFailedAfterMs?: number; readonly withoutOnFailure?: boolean } | undefined,
  onFailure: ProcessDueAlarmsOptions<never, unknown>["onFailure"]
): ProcessDueAlarmsOptions<never, unknown> | undefined => {
  const callback = options?.withoutOnFailure === true ? undefined : onFailure
  if (options?.limit === undefined && options?.retryFailedAfterMs === undefined && callback === undefined) return undefined
  return {
    ...(options?.limit === undefined ? {} : { limit: options.limit }),
    ...(options?.retryFailedAfterMs === undefined ? {} : { retryFailedAfter: options.retryFailedAfterMs }),
    ...(callback === undefined ? {} : { onFailure: callback })
  }
}

const eventJson = (event: AlarmEvent): Json => ({
  id: event.id,
  tag: event.tag,
  payload: event.payload as Json,
  scheduledAtMs: DateTime.toEpochMillis(event.scheduledAt)
})

/** A dispatch result in the model's shape. */
export const dispatchJson = (result: ProcessDueAlarmsResult): Json => ({
  handled: result.handled.map(eventJson),
  failed: result.failed.map((failure) => ({
    tag: failure.tag,
    id: failure.id,
    event: failure.event === undefined ? null : eventJson(failure.event),
    causeTag: causeTagOf(failure.cause)
  })),
  parked: result.parked.map(parkedReportJson)
})

/** The fields of upstream's `AlarmParked` (R27: a report is content-free). */
const PARKED_REPORT_FIELDS: ReadonlySet<string> = new Set(["_tag", "attempts", "retryAt"])

/**
 * A parked report in the model's shape `{attempts, retryAtMs}`. What upstream's content-free
 * `AlarmParked` would not hold is added, so it differs from the model: `tag` when the report's `_tag`
 * is not `AlarmParked`, `extraFields` naming any field beyond `_tag`, `attempts` and `retryAt` (an id,
 * a tag or a payload leaking into the report).
 */
export const parkedReportJson = (report: AlarmParked): Json => {
  const extraFields = Object.keys(report).filter((key) => !PARKED_REPORT_FIELDS.has(key)).sort()
  const tag: unknown = (report as { readonly _tag?: unknown })._tag
  return {
    attempts: report.attempts,
    retryAtMs: DateTime.toEpochMillis(report.retryAt),
    ...(tag === "AlarmParked" ? {} : { tag: typeof tag === "string" ? tag : null }),
    ...(extraFields.length === 0 ? {} : { extraFields })
  }
}

/** A status in the model's shape. */
export const statusJson = (status: AlarmStatus | undefined): ModelAlarmStatus | null =>
  status === undefined
    ? null
    : {
      attempts: status.attempts,
      parked: status.parked,
      runAtMs: DateTime.toEpochMillis(status.runAt),
      retryAtMs: status.retryAt === undefined ? null : DateTime.toEpochMillis(status.retryAt)
    }
