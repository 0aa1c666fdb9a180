/**
 * An independent `alarms` implementation (effect-cf 0.52 `DurableObjectAlarm` behaviour), written
 * from the reference rules and seed 000 only, bound through `run --implementation`.
 */
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { makeScheduler } from "./scheduler.ts"

/** The implementation: one scheduler per `make`, rebuilt from storage on every call. */
export const independentAlarms: AlarmsImplementation = {
  name: "independent-alarms",
  make: (deps) => makeScheduler(deps)
}

export default { subject: "alarms", implementation: independentAlarms, version: "0.1.0" }
