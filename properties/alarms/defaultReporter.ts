/**
 * Observing upstream's default `AlarmReporter` (R27: "default: log a warning").
 *
 * When a step provides no reporter, the harness replaces the step's loggers with one that keeps every
 * log entry carrying a parked report, so the reports are compared with the model's like the scripted
 * reporter's calls. An entry at another level than `Warn` is recorded with its level (the model never
 * predicts one). Entries without a report (the implementation's own diagnostics) are ignored.
 */
import { DateTime, type Effect } from "effect"
import { handingLogger, withLogsTo } from "../../harness/LogRecorder.ts"
import type { Json } from "../../harness/Property.ts"
import type { AlarmParked } from "../../subjects/alarms/api.ts"
import { parkedReportJson } from "./driver.ts"

/** Log entries kept per step at most (a bound: a runaway logger cannot grow the record without end). */
export const MAX_REPORT_LOG_ENTRIES = 1_000

const isParkedReport = (value: unknown): value is AlarmParked =>
  typeof value === "object" && value !== null && typeof (value as { attempts?: unknown }).attempts === "number" &&
  DateTime.isDateTime((value as { retryAt?: unknown }).retryAt)

/** A logger recording, into `calls`, each parked report a log entry carries (in the model's shape). */
const reportLogger = (calls: Array<Json>) =>
  handingLogger(({ level, parts }) => {
    for (const part of parts) {
      if (!isParkedReport(part) || calls.length >= MAX_REPORT_LOG_ENTRIES) continue
      const report = parkedReportJson(part) as Record<string, Json>
      calls.push(level === "Warn" ? report : { ...report, logLevel: level })
    }
  })

/** Runs `effect` with no `AlarmReporter` provided and its loggers replaced by one recording reports into `calls`. */
export const withDefaultReporter = <A, E, R>(effect: Effect.Effect<A, E, R>, calls: Array<Json>): Effect.Effect<A, E, R> =>
  withLogsTo(effect, reportLogger(calls))
