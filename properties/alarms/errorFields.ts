/**
 * The fields upstream's alarm errors carry (seed 000), for `harness/ErrorShape.ts`: every error seed
 * 000 constructs is built with its `cause` (`new InvalidAlarmRefError({ cause })`, ...), a
 * `StorageOperationError` also names its `operation` (`"alarm.schedule"`, `"setAlarm"`), a
 * `StoredAlarmDecodeError` names the row's `storageId`, and the two classes whose bodies the seed shows
 * (`InvalidScheduleConfigurationError`, `InvalidProcessDueAlarmsOptionsError`) have a message getter.
 * `InvalidRepeatEveryError` is not constructed in the seed, so nothing is asked of it.
 */
import type { ErrorFieldCatalog } from "../../harness/ErrorShape.ts"

/** Upstream's alarm errors and the fields each carries. */
export const ALARM_ERROR_FIELDS: ErrorFieldCatalog = {
  InvalidScheduleConfigurationError: { cause: "present", message: "text" },
  InvalidProcessDueAlarmsOptionsError: { cause: "present", message: "text" },
  InvalidAlarmRefError: { cause: "present" },
  InvalidAlarmPayloadError: { cause: "present" },
  StorageOperationError: { operation: "text", cause: "present" },
  StoredAlarmDecodeError: { cause: "present", storageId: "text" }
}
