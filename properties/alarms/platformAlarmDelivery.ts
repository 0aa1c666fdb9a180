/**
 * The alarms subject's real platform alarm delivery (do-sqlite registers it as the alarms plugin's
 * `platformAlarmDelivery`, see `hosts/do-sqlite/workerEntry.ts`).
 *
 * When workerd fires the conformance object's alarm, this handler builds the shipped scheduler
 * (`shippedAlarms`) over the delivered SQL client and platform alarm slot (a restart from storage, as
 * after an eviction) and runs `processDueAlarms` with a table of handlers by alarm tag. The
 * scheduler's reconcile then re-arms the platform alarm at the next wake, or deletes it.
 *
 * Time: the scheduler reads Effect's `Clock`, and do-sqlite stores virtual times shifted by
 * `NATIVE_ALARM_HORIZON_MS`, so a delivery runs under a TestClock set to the delivery's virtual time:
 * `scheduledAtMs` when workerd reports it, else the real time minus the horizon (for a delivery the
 * real clock fired), unless the configuration names a time (tests that call `runDurableObjectAlarm`).
 */
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { NATIVE_ALARM_HORIZON_MS } from "../../adapters/do-sqlite/adapter.ts"
import type { PlatformAlarmDelivery } from "../../harness/SubjectPlugin.ts"
import type { AlarmEvent, ProcessDueAlarmsResult } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"

/** Name under which the alarms delivery is registered in a host (the subject's name). */
export const ALARMS_DELIVERY_NAME = "alarms"

/** Handles one due alarm of a tag; a failure takes the scheduler's retry path. */
export type AlarmsTagHandler = (event: AlarmEvent) => Effect.Effect<unknown, unknown>

/** What the alarms delivery does; replaced as a whole by `configureAlarmsDelivery`. */
export interface AlarmsDeliveryConfiguration {
  /** Handlers by alarm tag. An alarm whose tag has no handler fails (and is retried later). */
  readonly handlers: Readonly<Record<string, AlarmsTagHandler>>
  /** The virtual time of a delivery; default: `scheduledAtMs`, else real time minus the horizon. */
  readonly virtualNowMs?: (delivery: PlatformAlarmDelivery) => number
}

/** One delivery's outcome, newest last (see `recentAlarmsDeliveries`). */
export interface AlarmsDeliveryRecord {
  readonly virtualNowMs: number
  readonly result: ProcessDueAlarmsResult
}

/** Most delivery records kept for inspection. */
export const MAX_DELIVERY_RECORDS = 32

const defaultVirtualNowMs = (delivery: PlatformAlarmDelivery): number =>
  delivery.scheduledAtMs ?? Date.now() - NATIVE_ALARM_HORIZON_MS

let configuration: AlarmsDeliveryConfiguration = { handlers: {} }
const records: Array<AlarmsDeliveryRecord> = []

/** Replaces the delivery's handler table (and optionally its clock). */
export const configureAlarmsDelivery = (next: AlarmsDeliveryConfiguration): void => {
  configuration = next
}

/** The outcomes of the latest deliveries (at most `MAX_DELIVERY_RECORDS`), oldest first. */
export const recentAlarmsDeliveries = (): ReadonlyArray<AlarmsDeliveryRecord> => [...records]

/** Forgets the recorded outcomes. */
export const clearAlarmsDeliveries = (): void => {
  records.length = 0
}

const unhandledTag = (event: AlarmEvent) =>
  Effect.fail(new Error(`no alarms delivery handler for tag ${event.tag}; add one with configureAlarmsDelivery`))

/**
 * One delivery: build the shipped scheduler from storage and dispatch the due alarms at the
 * delivery's virtual time. Handler failures are retried by the scheduler and do not fail the delivery;
 * a storage failure does (workerd then retries the platform alarm).
 */
export const deliverAlarms = (delivery: PlatformAlarmDelivery): Effect.Effect<ProcessDueAlarmsResult, unknown> => {
  const { handlers, virtualNowMs = defaultVirtualNowMs } = configuration
  const nowMs = virtualNowMs(delivery)
  return Effect.gen(function*() {
    yield* TestClock.setTime(nowMs)
    const alarms = yield* shippedAlarms.make({ sql: delivery.sql, dialect: "sqlite", platformAlarm: delivery.platformAlarm })
    const result = yield* alarms.processDueAlarms((event) => (handlers[event.tag] ?? unhandledTag)(event))
    records.push({ virtualNowMs: nowMs, result })
    if (records.length > MAX_DELIVERY_RECORDS) records.splice(0, records.length - MAX_DELIVERY_RECORDS)
    return result
  }).pipe(Effect.provide(TestClock.layer()))
}

/** `deliverAlarms` as a plugin's platform alarm delivery handler (the result is recorded, not returned). */
export const alarmsPlatformAlarmDelivery = (delivery: PlatformAlarmDelivery): Effect.Effect<void, unknown> =>
  Effect.asVoid(deliverAlarms(delivery))
