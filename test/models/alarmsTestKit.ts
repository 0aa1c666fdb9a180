/**
 * Small helpers for the alarms model tests: operation builders and a fold over steps.
 */
import {
  type HandlerScript,
  type HandlerScriptEntry,
  type ModelState,
  type Operation,
  type ProcessOptions,
  type ScheduleInput,
  step,
  type StepOutcome,
  storageIdOf,
  statusOf
} from "../../models/alarms/index.ts"

/** A schedule operation. */
export const schedule = (nowMs: number, input: ScheduleInput): Operation => ({ kind: "scheduleAlarm", nowMs, input })

/** A schedule-earlier operation. */
export const scheduleEarlier = (nowMs: number, input: ScheduleInput): Operation => ({ kind: "scheduleAlarmEarlier", nowMs, input })

/** A cancel operation. */
export const cancel = (nowMs: number, tag: string, id: string): Operation => ({ kind: "cancelAlarm", nowMs, ref: { tag, id } })

/** A dispatch operation with scripts keyed `"tag/id"`. */
export const dispatch = (
  nowMs: number,
  scripts: Record<string, HandlerScript> = {},
  options?: ProcessOptions
): Extract<Operation, { kind: "processDueAlarms" }> => {
  const handlers: Array<HandlerScriptEntry> = Object.entries(scripts).map(([key, script]) => {
    const [tag, id] = key.split("/") as [string, string]
    return { tag, id, script }
  })
  return options === undefined ? { kind: "processDueAlarms", nowMs, handlers } : { kind: "processDueAlarms", nowMs, handlers, options }
}

/** Runs operations in order, returning every outcome and the last state. */
export const runAll = (state: ModelState, operations: ReadonlyArray<Operation>): { readonly state: ModelState; readonly outcomes: Array<StepOutcome> } => {
  const outcomes: Array<StepOutcome> = []
  let current = state
  for (const operation of operations) {
    const outcome = step(current, operation)
    outcomes.push(outcome)
    current = outcome.state
  }
  return { state: current, outcomes }
}

/** Status of `tag/id`. */
export const statusFor = (state: ModelState, tag: string, id: string) => statusOf(state, storageIdOf({ tag, id }))

/** The dispatch value of a successful processDueAlarms outcome. */
export const dispatchValue = (outcome: StepOutcome) => {
  if (outcome.result._tag !== "Success") throw new Error(`expected success, got ${JSON.stringify(outcome.result)}`)
  return outcome.result.value as {
    readonly handled: ReadonlyArray<{ readonly id: string; readonly scheduledAtMs: number }>
    readonly failed: ReadonlyArray<{ readonly id: string; readonly causeTag: string; readonly event: { readonly id: string; readonly scheduledAtMs: number } | null }>
    readonly parked: ReadonlyArray<{ readonly attempts: number; readonly retryAtMs: number }>
  }
}

/** A one-shot input for tag `t`. */
export const oneShot = (id: string, runAtMs: number, extra: Partial<ScheduleInput> = {}): ScheduleInput => ({
  tag: "t",
  id,
  payload: { id },
  runAtMs,
  ...extra
})
