/**
 * "Their" scheduler: stands in for someone else's alarm library with its own surface, the kind of code
 * an implementation author already has before binding it to this suite.
 *
 * Its vocabulary differs from ours on purpose: timers are `{ kind, key }`, times are epoch-millisecond
 * numbers rather than `DateTime`, `arm`/`armEarlier`/`disarm`/`peek`/`atomically`/`fire` instead of
 * `scheduleAlarm`/.../`processDueAlarms`, and results use other field names. To keep the example
 * self-contained, the library is built on the shipped scheduler; a real one would have its own tables
 * and SQL. Nothing in this file knows about the conformance suite.
 */
import { DateTime, type Duration, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect, PlatformAlarm } from "../../adapters/contract.ts"
import type {
  AlarmPayload,
  AlarmScheduler,
  AlarmTransaction,
  OnFailureAction,
  ProcessDueAlarmsFailure,
  ScheduleAlarmInput
} from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"

/** Names one timer. */
export interface TimerKey {
  readonly kind: string
  readonly key: string
}

/** Options of `arm`. */
export interface ArmOptions {
  /** Re-fire this often after each completed run. */
  readonly every?: Duration.Input
  /** A monotonic source cursor; only a greater one counts as progress. */
  readonly cursor?: number
}

/** A timer due now, handed to the `fire` callback. */
export interface FiredTimer {
  readonly kind: string
  readonly key: string
  readonly data: AlarmPayload
  /** The timer's deadline in epoch ms (stable across retries). */
  readonly dueAtMs: number
}

/** What `peek` reports. */
export interface TimerInfo {
  readonly tries: number
  readonly stuck: boolean
  readonly dueAtMs: number
  readonly backoffUntilMs: number | null
}

/** A failed timer of one `fire` call. */
export interface FireError {
  readonly timer: FiredTimer | undefined
  readonly kind: string
  readonly key: string
  readonly cause: unknown
}

/** Result of `fire`. */
export interface FireReport {
  readonly ok: ReadonlyArray<FiredTimer>
  readonly errors: ReadonlyArray<FireError>
  /** Timers that ran out of retries during this call: how many tries, and when they are retried next (epoch ms). */
  readonly stuck: ReadonlyArray<{ readonly tries: number; readonly nextTryMs: number }>
}

/** Options of `fire`. */
export interface FireOptions<R, E> {
  readonly max?: number
  readonly retryBase?: Duration.Input
  readonly onError?: (error: FireError) => Effect.Effect<OnFailureAction | void, E, R>
}

/** Timer writes that belong to one `atomically` block. */
export interface TimerBatch {
  readonly arm: (timer: TimerKey, atMs: number, data: AlarmPayload, options?: ArmOptions) => Effect.Effect<void, unknown>
  readonly armEarlier: (timer: TimerKey, atMs: number, data: AlarmPayload, options?: ArmOptions) => Effect.Effect<void, unknown>
  readonly disarm: (timer: TimerKey) => Effect.Effect<void, unknown>
}

/** Their library's main object. */
export interface TimerTable extends TimerBatch {
  readonly peek: (timer: TimerKey) => Effect.Effect<TimerInfo | null, unknown>
  readonly atomically: <A, E, R>(block: (batch: TimerBatch) => Effect.Effect<A, E, R>) => Effect.Effect<A, unknown, R>
  readonly fire: <R, E, OR, OE>(
    handler: (timer: FiredTimer) => Effect.Effect<unknown, E, R>,
    options?: FireOptions<OR, OE>
  ) => Effect.Effect<FireReport, unknown, R | OR>
}

/** What their library needs to open a table. */
export interface TimerTableConfig {
  readonly client: SqlClient.SqlClient
  readonly flavour: Dialect
  /** The one wake-up slot of the host (a Durable Object's alarm). */
  readonly wakeSlot: PlatformAlarm
}

const ms = (at: DateTime.Utc): number => DateTime.toEpochMillis(at)

const toInput = (timer: TimerKey, atMs: number, data: AlarmPayload, options: ArmOptions | undefined): ScheduleAlarmInput => ({
  tag: timer.kind,
  id: timer.key,
  payload: data,
  runAt: DateTime.makeUnsafe(atMs),
  ...(options?.every === undefined ? {} : { repeatEvery: options.every }),
  ...(options?.cursor === undefined ? {} : { progress: options.cursor })
})

const batchOver = (inner: AlarmTransaction): TimerBatch => ({
  arm: (timer, atMs, data, options) => inner.scheduleAlarm(toInput(timer, atMs, data, options)),
  armEarlier: (timer, atMs, data, options) => inner.scheduleAlarmEarlier(toInput(timer, atMs, data, options)),
  disarm: (timer) => inner.cancelAlarm({ tag: timer.kind, id: timer.key })
})

const fired = (failure: ProcessDueAlarmsFailure): FireError => ({
  timer: failure.event === undefined
    ? undefined
    : { kind: failure.event.tag, key: failure.event.id, data: failure.event.payload, dueAtMs: ms(failure.event.scheduledAt) },
  kind: failure.tag,
  key: failure.id,
  cause: failure.cause
})

const wrap = (inner: AlarmScheduler): TimerTable => ({
  ...batchOver(inner),
  peek: (timer) =>
    Effect.map(inner.getAlarmStatus({ tag: timer.kind, id: timer.key }), (status) =>
      status === undefined
        ? null
        : { tries: status.attempts, stuck: status.parked, dueAtMs: ms(status.runAt), backoffUntilMs: status.retryAt === undefined ? null : ms(status.retryAt) }),
  atomically: (block) => inner.transaction((tx) => block(batchOver(tx))),
  fire: (handler, options) =>
    Effect.map(
      inner.processDueAlarms(
        (event) => handler({ kind: event.tag, key: event.id, data: event.payload, dueAtMs: ms(event.scheduledAt) }),
        {
          ...(options?.max === undefined ? {} : { limit: options.max }),
          ...(options?.retryBase === undefined ? {} : { retryFailedAfter: options.retryBase }),
          ...(options?.onError === undefined ? {} : { onFailure: (failure: ProcessDueAlarmsFailure) => options.onError!(fired(failure)) })
        }
      ),
      (result): FireReport => ({
        ok: result.handled.map((event) => ({ kind: event.tag, key: event.id, data: event.payload, dueAtMs: ms(event.scheduledAt) })),
        errors: result.failed.map(fired),
        stuck: result.parked.map((parked) => ({ tries: parked.attempts, nextTryMs: ms(parked.retryAt) }))
      })
    )
})

/** Opens their timer table over a database (creating or migrating its tables). */
export const openTimerTable = (config: TimerTableConfig): Effect.Effect<TimerTable, unknown> =>
  Effect.map(shippedAlarms.make({ sql: config.client, dialect: config.flavour, platformAlarm: config.wakeSlot }), wrap)

/** Their library's version, recorded in an implementation certificate. */
export const TIMER_TABLE_VERSION = "2.3.1"
