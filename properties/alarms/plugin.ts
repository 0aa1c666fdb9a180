/**
 * The alarms subject as a plugin: its catalog, reference model, implementation guard, shipped
 * scheduler, suite, hook points and platform alarm delivery. Listed in `properties/plugins.ts`.
 *
 * @example
 * ```ts
 * alarmsPlugin.isImplementation({ name: "mine", make }) // true
 * alarmsPlugin.suite(alarmsPlugin.shipped).properties.map((property) => property.id)
 * // ["alarms/model", "alarms/faults", "alarms/migration"]
 * ```
 */
import { hasNameAndFunctions, type SubjectPlugin } from "../../harness/SubjectPlugin.ts"
import { alarmsModel } from "../../models/alarms/referenceModel.ts"
import { alarmRequirements } from "../../spec/alarms.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { ALARM_HOOK_POINTS, shippedAlarms } from "../../subjects/alarms/index.ts"
import { alarmsSuite } from "./index.ts"
import { alarmsPlatformAlarmDelivery } from "./platformAlarmDelivery.ts"

/** Whether `value` looks like an `AlarmsImplementation` (a non-empty name and a `make` function). */
export const isAlarmsImplementation = (value: unknown): value is AlarmsImplementation => hasNameAndFunctions(value, ["make"])

/** The alarms subject. */
export const alarmsPlugin: SubjectPlugin<AlarmsImplementation> = {
  name: "alarms",
  requirements: alarmRequirements,
  model: alarmsModel,
  implementationType: { name: "AlarmsImplementation", shape: "{ name, make }", needs: "a name and a make function" },
  isImplementation: isAlarmsImplementation,
  shipped: shippedAlarms,
  suite: alarmsSuite,
  hookPoints: ALARM_HOOK_POINTS,
  platformAlarmDelivery: alarmsPlatformAlarmDelivery
}
