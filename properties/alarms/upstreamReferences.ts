/**
 * The context references an application provides to an alarms scheduler, under upstream's keys (seed
 * 000, `effect-cf/DurableObjectAlarm/*`). The keys are part of the contract: an application written
 * for upstream provides these, and a scheduler reading its configuration or reporter under any other
 * key would run with the defaults and log its reports instead. So the harness provides them through
 * references of its own, never through the subject's exported ones, which an implementation could
 * rename together with the key it reads (as `properties/clocks/session.ts` does for `FlowInstance`).
 */
import { Context } from "effect"
import type { AlarmReporterFn, ScheduleConfiguration } from "../../subjects/alarms/api.ts"

/** Upstream's key of the schedule configuration reference (R1). */
export const UPSTREAM_SCHEDULE_CONFIGURATION_KEY = "effect-cf/DurableObjectAlarm/ScheduleConfiguration"

/** Upstream's key of the parked-alarm reporter reference (R27). */
export const UPSTREAM_ALARM_REPORTER_KEY = "effect-cf/DurableObjectAlarm/AlarmReporter"

/** The configuration an application provides, by upstream's key. */
export class UpstreamScheduleConfiguration extends Context.Service<UpstreamScheduleConfiguration, ScheduleConfiguration>()(
  UPSTREAM_SCHEDULE_CONFIGURATION_KEY
) {}

/** The reporter an application provides, by upstream's key. */
export class UpstreamAlarmReporter extends Context.Service<UpstreamAlarmReporter, AlarmReporterFn>()(UPSTREAM_ALARM_REPORTER_KEY) {}
