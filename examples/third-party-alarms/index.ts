/**
 * Binding someone else's alarm scheduler to the suite: what an implementation author writes.
 *
 *   npx durable-conformance run --implementation ./examples/third-party-alarms/index.ts --adapter sqlite --subject alarms
 *   npx durable-conformance certify --implementation ./examples/third-party-alarms/index.ts
 *   npx durable-conformance replay <token> --bind ./examples/third-party-alarms/index.ts --step
 *
 * The module default-exports `{ subject: "alarms", implementation, version }`, where `implementation`
 * is an `AlarmsImplementation` (subjects/alarms/api.ts): a name and `make(deps)`, which builds a scheduler
 * over the isolated database the harness hands over. Here `make` opens "their" library
 * (`theirScheduler.ts`) and adapts its surface to ours: names, epoch-ms numbers to `DateTime`, result
 * shapes, and their errors to the tagged errors of api.ts (requirements check error tags).
 */
import { DateTime, Effect } from "effect"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import {
  AlarmParked,
  type AlarmEvent,
  type AlarmScheduler,
  type AlarmsImplementation,
  type AlarmTransaction,
  type ProcessDueAlarmsFailure,
  type ScheduleAlarmInput,
  StorageOperationError
} from "../../subjects/alarms/api.ts"
import { type FiredTimer, type FireError, openTimerTable, TIMER_TABLE_VERSION, type TimerBatch, type TimerKey } from "./theirScheduler.ts"

/** Tags of the errors api.ts defines; anything else their library fails with becomes a `StorageOperationError`. */
const OUR_ERROR_TAGS = new Set([
  "InvalidScheduleConfigurationError",
  "InvalidAlarmRefError",
  "InvalidRepeatEveryError",
  "InvalidAlarmPayloadError",
  "InvalidProcessDueAlarmsOptionsError",
  "StorageOperationError"
])

const ourError = (operation: string) => (error: unknown): any =>
  typeof error === "object" && error !== null && OUR_ERROR_TAGS.has((error as { _tag?: string })._tag ?? "")
    ? error
    : new StorageOperationError({ operation, cause: error })

const keyOf = (ref: { readonly tag: string; readonly id: string }): TimerKey => ({ kind: ref.tag, key: ref.id })

const epochMs = (at: DateTime.Utc): number => DateTime.toEpochMillis(at)

const options = (input: ScheduleAlarmInput) => ({
  ...(input.repeatEvery === undefined ? {} : { every: input.repeatEvery }),
  ...(input.progress === undefined ? {} : { cursor: input.progress })
})

const eventOf = (timer: FiredTimer): AlarmEvent => ({ id: timer.key, tag: timer.kind, payload: timer.data, scheduledAt: DateTime.makeUnsafe(timer.dueAtMs) })

const failureOf = (error: FireError): ProcessDueAlarmsFailure => ({
  cause: error.cause,
  ...(error.timer === undefined ? {} : { event: eventOf(error.timer) }),
  tag: error.kind,
  id: error.key
})

const transactionOver = (batch: TimerBatch): AlarmTransaction => ({
  scheduleAlarm: (input) => Effect.mapError(batch.arm(keyOf(input), epochMs(input.runAt), input.payload, options(input)), ourError("scheduleAlarm")),
  scheduleAlarmEarlier: (input) =>
    Effect.mapError(batch.armEarlier(keyOf(input), epochMs(input.runAt), input.payload, options(input)), ourError("scheduleAlarmEarlier")),
  cancelAlarm: (input) => Effect.mapError(batch.disarm(keyOf(input)), ourError("cancelAlarm"))
})

/** Their scheduler bound to our `AlarmsImplementation` contract. */
export const theirAlarms: AlarmsImplementation = {
  name: "their-timer-table",
  make: (deps) =>
    Effect.gen(function*() {
      const table = yield* Effect.mapError(openTimerTable({ client: deps.sql, flavour: deps.dialect, wakeSlot: deps.platformAlarm }), ourError("make"))
      const scheduler: AlarmScheduler = {
        ...transactionOver(table),
        getAlarmStatus: (input) =>
          Effect.mapError(
            Effect.map(table.peek(keyOf(input)), (info) =>
              info === null
                ? undefined
                : {
                  attempts: info.tries,
                  parked: info.stuck,
                  runAt: DateTime.makeUnsafe(info.dueAtMs),
                  retryAt: info.backoffUntilMs === null ? undefined : DateTime.makeUnsafe(info.backoffUntilMs)
                }),
            ourError("getAlarmStatus")
          ),
        // The block's own failures must come back unchanged (a failing closure rolls back and fails with
        // its error); their library fails only with those or with ours, so no mapping here.
        transaction: (closure) => table.atomically((batch) => closure(transactionOver(batch))) as any,
        // Same for `onFailure`'s own failures, which abort the pass and fail the call.
        processDueAlarms: (handle, dueOptions) =>
          Effect.map(
            table.fire((timer) => handle(eventOf(timer)), {
              ...(dueOptions?.limit === undefined ? {} : { max: dueOptions.limit }),
              ...(dueOptions?.retryFailedAfter === undefined ? {} : { retryBase: dueOptions.retryFailedAfter }),
              ...(dueOptions?.onFailure === undefined ? {} : { onError: (error: FireError) => dueOptions.onFailure!(failureOf(error)) })
            }),
            (report) => ({
              handled: report.ok.map(eventOf),
              failed: report.errors.map(failureOf),
              parked: report.stuck.map((episode) => AlarmParked({ attempts: episode.tries, retryAt: DateTime.makeUnsafe(episode.nextTryMs) }))
            })
          ) as any
      }
      return scheduler
    })
}

/** The alarms suite bound to this implementation: what `replay --bind` needs to re-run one of its failures. */
export const suites: ReadonlyArray<SubjectSuite> = [alarmsSuite(theirAlarms)]

/** The binding `--implementation` loads. */
export default { subject: "alarms", implementation: theirAlarms, version: TIMER_TABLE_VERSION } as const
