/**
 * The dispatch race of `alarms/race`: an external call (`scheduleAlarm`, `scheduleAlarmEarlier`,
 * `cancelAlarm`, from a fiber outside the pass: R11 applies, no source) lands while `processDueAlarms`
 * runs, at one of the batch's points between its transactions, or after the call. The points are the
 * scheduler's hook points `alarms.dispatch.afterSelectDue`, `.afterAcknowledge`, `.beforeFailureWrite` and
 * `alarms.afterCommitBeforeReport` of a failure write, and the harness's own points at the start and end
 * of its scripted handler (`HANDLER_START_POINT`), which a scheduler without hook points reaches too.
 * They are all outside any transaction, so the racer's own transaction runs on a single-connection
 * adapter too (a point inside a transaction would deadlock it). The model is told where the racer's write landed
 * (`models/alarms/race.ts`) and predicts the batch's result, rows, platform alarm and reports.
 */
import { Effect } from "effect"
import type { Check } from "../../harness/ModelBased.ts"
import { finish, releaseTo, startPaused } from "../../harness/PausedOperations.ts"
import { capturedHookPoints, makeScriptedHooks } from "../../harness/HookPoints.ts"
import type { Json } from "../../harness/Property.ts"
import { runScheduled, type ScheduledStep } from "../../harness/StepScheduler.ts"
import { type DispatchRacePoint, type Operation, RACER_RULES } from "../../models/alarms/index.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { modelOperation, withoutReasons } from "./commands.ts"
import { dispatchJson, dispatchOptions, type ForkedWrite, HANDLER_END_POINT, HANDLER_START_POINT, runMutation, scriptedDispatch } from "./driver.ts"
import { ALARMS_RACE_INTERLEAVING, type RaceHandlerSpec, type RacePlacement } from "./raceScenario.ts"
import { exitJson, type RaceSession } from "./raceSession.ts"
import type { Command, HandlerEntrySpec, MutationSpec } from "./scenario.ts"
import { harnessError } from "./session.ts"

/**
 * The hook point each race point pauses the batch at (`afterFailureCommit` goes on to the commit). The
 * handler's two points are the harness's own, in its scripted handler (`HANDLER_START_POINT`), so a
 * racer lands inside a handler pass whether or not the scheduler has hook points.
 */
const POINT_HOOK: Record<DispatchRacePoint, string> = {
  afterSelectDue: "alarms.dispatch.afterSelectDue",
  beforeHandler: HANDLER_START_POINT,
  afterHandler: HANDLER_END_POINT,
  afterAcknowledge: "alarms.dispatch.afterAcknowledge",
  beforeFailureWrite: "alarms.dispatch.beforeFailureWrite",
  afterFailureCommit: "alarms.dispatch.beforeFailureWrite"
}

/** The batch's points a step schedule may stop at (between transactions; the handler's are the harness's). */
const SCHEDULING_HOOKS: ReadonlyMap<string, DispatchRacePoint> = new Map([
  ["alarms.dispatch.afterSelectDue", "afterSelectDue"],
  [HANDLER_START_POINT, "beforeHandler"],
  [HANDLER_END_POINT, "afterHandler"],
  ["alarms.dispatch.afterAcknowledge", "afterAcknowledge"],
  ["alarms.dispatch.beforeFailureWrite", "beforeFailureWrite"],
  ["alarms.afterCommitBeforeReport", "afterFailureCommit"]
])

/**
 * The batch's scheduling points: its between-transaction hook points, and `alarms.afterCommitBeforeReport`
 * only right after a `beforeFailureWrite` (the failure write's commit; other commits are not points).
 */
const batchPoints = (): ((label: string, hook: string) => boolean) => {
  let failureWriteOpen = false
  return (label, hook) => {
    if (label !== "dispatch") return false
    if (hook === "alarms.afterCommitBeforeReport") {
      const point = failureWriteOpen
      failureWriteOpen = false
      return point
    }
    if (hook === "alarms.dispatch.beforeFailureWrite") failureWriteOpen = true
    return SCHEDULING_HOOKS.has(hook)
  }
}

/** Where the racer's write landed relative to the batch. */
export type RaceLanding =
  | { readonly kind: "before" }
  | { readonly kind: "at"; readonly point: DispatchRacePoint; readonly occurrence: number }
  | { readonly kind: "after" }

/** What the implementation did in one dispatch race. */
export interface DispatchRaceRun {
  readonly dispatch: Json
  readonly racer: Json
  readonly landing: RaceLanding
  readonly steps?: ReadonlyArray<string>
}

/** The command of the racer (as the alarms properties spell an external call). */
export const racerCommand = (mutation: MutationSpec): Command =>
  mutation.kind === "cancelAlarm"
    ? { op: "cancel", ref: mutation.ref }
    : { op: "schedule", input: mutation.input, ...(mutation.kind === "scheduleAlarmEarlier" ? { earlier: true } : {}) }

/** The batch's handler scripts. */
export const handlerEntries = (handlers: ReadonlyArray<RaceHandlerSpec>): ReadonlyArray<HandlerEntrySpec> =>
  handlers.map((handler) => ({
    ...VALID_REFS[handler.ref]!,
    script: { ...(handler.fail ? { outcome: "fail" as const } : {}), ...(handler.onFailure === "none" ? {} : { onFailure: { kind: "skipAndAdvanceRepeat" as const } }) }
  }))

/** The model's batch operation (without a racer). */
export const dispatchOperation = (handlers: ReadonlyArray<HandlerEntrySpec>, atMs: number): Extract<Operation, { kind: "processDueAlarms" }> =>
  modelOperation({ op: "dispatch", handlers }, atMs) as Extract<Operation, { kind: "processDueAlarms" }>

const calls = (session: RaceSession, handlers: ReadonlyArray<HandlerEntrySpec>, racer: MutationSpec, atMs: number) => {
  const forked: Array<ForkedWrite> = []
  const visits: Array<string> = []
  // The handler's points are captured before the call, so a scheduler that silences hook points still reaches them.
  const dispatch = session.provide(Effect.flatMap(capturedHookPoints, (atHandlerPoint) => {
    const scripted = scriptedDispatch(session.scheduler, handlers, atMs, forked, visits, atHandlerPoint)
    return Effect.map(session.scheduler.processDueAlarms(scripted.handle, dispatchOptions(undefined, scripted.onFailure)), dispatchJson)
  }))
  const racing = session.provide(Effect.as(runMutation(session.scheduler, racer, atMs), null as Json))
  return { dispatch, racing }
}

/** The racer at the `occurrence`-th hit of `point` through scripted hook points, or after the batch. */
const hookRace = (session: RaceSession, handlers: ReadonlyArray<HandlerEntrySpec>, racer: MutationSpec, atMs: number, point: DispatchRacePoint, occurrence: number) =>
  Effect.gen(function*() {
    const { dispatch, racing } = calls(session, handlers, racer, atMs)
    const hooks = yield* makeScriptedHooks
    const hook = POINT_HOOK[point]
    let batch = yield* startPaused(hooks, "dispatch", hook, dispatch)
    for (let hit = 0; hit < occurrence && batch.paused; hit++) batch = yield* releaseTo(hooks, batch, hook)
    if (point === "afterFailureCommit") batch = yield* releaseTo(hooks, batch, "alarms.afterCommitBeforeReport")
    if (!batch.paused) {
      const dispatched = yield* finish(hooks, batch)
      const raced = yield* Effect.exit(racing)
      return { dispatch: exitJson(dispatched, (json) => json), racer: exitJson(raced, () => null), landing: { kind: "after" } } satisfies DispatchRaceRun
    }
    const raced = yield* Effect.exit(racing)
    const dispatched = yield* finish(hooks, batch)
    return { dispatch: exitJson(dispatched, (json) => json), racer: exitJson(raced, () => null), landing: { kind: "at", point, occurrence } } satisfies DispatchRaceRun
  })

/** Where the racer (one step: its start) landed among the batch's steps. */
export const landingOf = (steps: ReadonlyArray<ScheduledStep>): RaceLanding => {
  const racerStep = steps.find((step) => step.label === "racer")!.step
  const batchBefore = steps.filter((step) => step.label === "dispatch" && step.step < racerStep)
  const next = steps.find((step) => step.label === "dispatch" && step.step > racerStep)
  if (batchBefore.length === 0) return { kind: "before" }
  if (next === undefined) return { kind: "after" }
  const point = SCHEDULING_HOOKS.get(next.from)!
  return { kind: "at", point, occurrence: batchBefore.filter((step) => step.from === next.from).length }
}

/** The racer started where a generated step schedule puts it among the batch's scheduling points. */
const scheduledRace = (session: RaceSession, handlers: ReadonlyArray<HandlerEntrySpec>, racer: MutationSpec, atMs: number, placement: Extract<RacePlacement, { mode: "scheduled" }>) =>
  Effect.gen(function*() {
    const { dispatch, racing } = calls(session, handlers, racer, atMs)
    const run = yield* runScheduled<Json, unknown, never>(
      [{ label: "dispatch", effect: dispatch }, { label: "racer", effect: racing }],
      placement.schedule,
      { maxSteps: ALARMS_RACE_INTERLEAVING.steps, points: batchPoints() }
    ).pipe(Effect.mapError(harnessError("scheduling the race")))
    return {
      dispatch: exitJson(run.exits[0]!, (json) => json),
      racer: exitJson(run.exits[1]!, () => null),
      landing: landingOf(run.steps),
      steps: run.steps.map((step) => `${step.label}@${step.from}`)
    } satisfies DispatchRaceRun
  })

/** Runs the batch and the racer as `placement` says. */
export const runDispatchRace = (session: RaceSession, handlers: ReadonlyArray<HandlerEntrySpec>, racer: MutationSpec, atMs: number, placement: RacePlacement) =>
  Effect.gen(function*() {
    if (placement.mode === "scheduled") return yield* scheduledRace(session, handlers, racer, atMs, placement)
    if (placement.mode === "hook") return yield* hookRace(session, handlers, racer, atMs, placement.point, placement.occurrence)
    const { dispatch, racing } = calls(session, handlers, racer, atMs)
    const dispatched = yield* Effect.exit(dispatch)
    const raced = yield* Effect.exit(racing)
    return { dispatch: exitJson(dispatched, (json) => json), racer: exitJson(raced, () => null), landing: { kind: "after" } } satisfies DispatchRaceRun
  })

/** A check of one race observable, attributed to the rules that decide an interleaving's outcome. */
export const raceCheck = (observable: string, expected: Json, actual: Json, why: string): Check => ({
  observable,
  expected: withoutReasons(expected),
  actual,
  rules: RACER_RULES,
  why
})

/** The landing as words and as JSON. */
export const landingWords = (landing: RaceLanding): string =>
  landing.kind === "at" ? `at ${landing.point} #${landing.occurrence + 1}` : landing.kind === "before" ? "before the batch" : "after the batch"

/** The landing the model compares (`ranAt`): a point within the batch or `after` / `before`. */
export const landingJson = (landing: RaceLanding): Json => (landing.kind === "at" ? landing.point : landing.kind)

