/**
 * The failure path of one due row (R24): record, ask `onFailure`, write, report, then re-raise.
 */
import { Cause, Effect, Exit } from "effect"
import type {
  AlarmEvent,
  OnFailureAction,
  ProcessDueAlarmsFailure,
  ProcessDueAlarmsOptions,
  ResolvedScheduleConfiguration
} from "../../subjects/alarms/api.ts"
import { acknowledge, rescheduleAfterFailure } from "./acknowledge.ts"
import type { Batch } from "./dispatch.ts"
import type { StoredAlarm } from "./store.ts"
import type { TransactionContext } from "./transaction.ts"
import { runTransaction } from "./transaction.ts"
import { validateFailureDelay } from "./validate.ts"

const modeOf = (action: OnFailureAction | void): "retry" | "skip-and-advance-repeat" => {
  const mode = typeof action === "string" ? action : typeof action === "object" && action !== null ? action.mode : "retry"
  return mode === "skip-and-advance-repeat" ? mode : "retry"
}

const ownDelayOf = (action: OnFailureAction | void) =>
  typeof action === "object" && action !== null && action.mode === "retry" ? action.retryFailedAfter : undefined

/**
 * Lists the failure, runs `onFailure` under `Effect.exit` (default action `retry`), then in one
 * transaction either acknowledges (`skip-and-advance-repeat`) or reschedules with the action's own
 * delay (floored at `minimumRetryDelay`; invalid falls back to the base delay). Parking is reported
 * after commit; only then does an `onFailure` failure (or an invalid own delay) fail the call.
 */
export const handleFailure = <OR, OE>(
  ctx: TransactionContext,
  row: StoredAlarm,
  event: AlarmEvent | undefined,
  cause: Cause.Cause<unknown>,
  batch: Batch,
  options: ProcessDueAlarmsOptions<OR, OE> | undefined,
  configuration: ResolvedScheduleConfiguration,
  baseDelayMs: number
) =>
  Effect.gen(function*() {
    const failure: ProcessDueAlarmsFailure = event === undefined
      ? { cause, tag: row.tag, id: row.alarmId }
      : { cause, event, tag: row.tag, id: row.alarmId }
    batch.failed.push(failure)
    const onFailure = options?.onFailure
    const actionExit = yield* Effect.exit(
      onFailure === undefined ? Effect.void : Effect.suspend(() => onFailure(failure))
    )
    const action = Exit.isSuccess(actionExit) ? actionExit.value : undefined
    const ownDelay = ownDelayOf(action)
    const delayExit = yield* Effect.exit(
      ownDelay === undefined ? Effect.succeed(baseDelayMs) : validateFailureDelay(ownDelay, configuration.minimumRetryDelayMs)
    )
    const delayMs = Exit.isSuccess(delayExit) ? delayExit.value : baseDelayMs
    yield* runTransaction(ctx, (_, queue) =>
      modeOf(action) === "skip-and-advance-repeat"
        ? acknowledge(ctx.store, row, configuration)
        : rescheduleAfterFailure(ctx.store, row, delayMs, configuration, queue))
    if (Exit.isFailure(actionExit)) return yield* Effect.failCause(actionExit.cause)
    if (Exit.isFailure(delayExit)) return yield* Effect.failCause(delayExit.cause)
  })
