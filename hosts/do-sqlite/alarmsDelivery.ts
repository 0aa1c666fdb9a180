/**
 * The alarms subject's real platform alarm delivery on do-sqlite. The delivery itself lives with the
 * alarms plugin (`properties/alarms/platformAlarmDelivery.ts`: build the shipped scheduler from storage
 * and dispatch the due alarms at the delivery's virtual time); the worker registers every plugin's
 * delivery (`workerEntry.ts`). This module keeps the names tests use to drive it by hand.
 */
import { registerAlarmHandler } from "./alarmHandlers.ts"
import { ALARMS_DELIVERY_NAME, alarmsPlatformAlarmDelivery } from "../../properties/alarms/platformAlarmDelivery.ts"

export {
  ALARMS_DELIVERY_NAME,
  clearAlarmsDeliveries,
  configureAlarmsDelivery,
  deliverAlarms,
  MAX_DELIVERY_RECORDS,
  recentAlarmsDeliveries
} from "../../properties/alarms/platformAlarmDelivery.ts"
export type { AlarmsDeliveryConfiguration, AlarmsDeliveryRecord, AlarmsTagHandler } from "../../properties/alarms/platformAlarmDelivery.ts"

/** Registers `deliverAlarms` as the object's `alarms` alarm handler; returns the unregister function. */
export const registerAlarmsDelivery = (): () => void => registerAlarmHandler(ALARMS_DELIVERY_NAME, alarmsPlatformAlarmDelivery)
