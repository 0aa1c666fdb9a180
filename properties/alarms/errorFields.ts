/**
 * The fields upstream's alarm errors carry (seed 000), for `harness/ErrorShape.ts`. Every error seed
 * 000 constructs is built with its `cause`: a validation error's is the failure that explains it (a
 * Schema decode error, or an `Error` such as `Unknown alarm tag "…"`), so it says something. A
 * `StorageOperationError` also names its `operation` (`"alarm.schedule"`, `"setAlarm"`), a
 * `StoredAlarmDecodeError` the row's `storageId`. The two classes whose bodies the seed shows have a
 * message getter; `InvalidScheduleConfigurationError`'s is built from its cause's message.
 * `InvalidRepeatEveryError` is not constructed in the seed, so nothing is asked of it.
 */
import type { ErrorFieldCatalog } from "../../harness/ErrorShape.ts"

/** Upstream's alarm errors and the fields each carries. */
export const ALARM_ERROR_FIELDS: ErrorFieldCatalog = {
  InvalidScheduleConfigurationError: { cause: "explained", message: "quotesCause" },
  InvalidProcessDueAlarmsOptionsError: { cause: "explained", message: "text" },
  InvalidAlarmRefError: { cause: "explained" },
  InvalidAlarmPayloadError: { cause: "explained" },
  StorageOperationError: { operation: "text", cause: "present" },
  StoredAlarmDecodeError: { cause: "present", storageId: "text" }
}
