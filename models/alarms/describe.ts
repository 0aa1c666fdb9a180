/**
 * One-line descriptions of operations and states, for traces and counterexample reports.
 */
import type { Operation, ScheduleInput } from "./operations.ts"
import type { ModelState } from "./state.ts"
import { readRow } from "./state.ts"

/** Epoch milliseconds from the year 2000 on read as UTC ISO time; small test times stay numbers. */
const READABLE_FROM_MS = 946_684_800_000

/** An instant for humans: `2026-01-01T00:00:05Z` (milliseconds only when present), or the raw number. */
export const formatInstantMs = (epochMs: number): string =>
  Number.isSafeInteger(epochMs) && epochMs >= READABLE_FROM_MS && epochMs <= 8_640_000_000_000_000
    ? new Date(epochMs).toISOString().replace(".000Z", "Z")
    : String(epochMs)

const describeInput = (input: ScheduleInput): string =>
  `${input.tag}/${input.id} at ${formatInstantMs(input.runAtMs)}${input.repeatEveryMs === undefined ? "" : ` every ${input.repeatEveryMs}ms`}${
    input.progress === undefined ? "" : ` cursor ${input.progress}`
  }`

/**
 * Describes an operation in a few words.
 *
 * @example describeOperation({ kind: "cancelAlarm", nowMs: 5, ref: { tag: "t", id: "a" } }) === "t=5 cancelAlarm t/a"
 */
export const describeOperation = (operation: Operation): string => {
  const at = "nowMs" in operation ? `t=${formatInstantMs(operation.nowMs)} ` : ""
  const fault = "fault" in operation && operation.fault !== undefined
    ? ` [fault ${operation.fault.phase} tx#${operation.fault.transaction}]`
    : ""
  switch (operation.kind) {
    case "scheduleAlarm":
    case "scheduleAlarmEarlier":
      return `${at}${operation.kind} ${describeInput(operation.input)}${fault}`
    case "cancelAlarm":
      return `${at}cancelAlarm ${operation.ref.tag}/${operation.ref.id}${fault}`
    case "getAlarmStatus":
      return `getAlarmStatus ${operation.ref.tag}/${operation.ref.id}`
    case "transaction":
      return `${at}transaction [${operation.mutations.map((m) => m.kind).join(", ")}]${operation.closureFails === true ? " then fail" : ""}${fault}`
    case "processDueAlarms":
      return `${at}processDueAlarms${operation.options?.limit === undefined ? "" : ` limit ${operation.options.limit}`} (${operation.handlers?.length ?? 0} scripts)${fault}`
    case "configure":
      return `configure ${JSON.stringify(operation.configuration)}`
    case "rebuildService":
      return operation.knownTags === undefined
        ? "rebuildService"
        : `rebuildService with typed definitions ${operation.knownTags === null ? "none" : `[${operation.knownTags.join(", ")}]`}${
          (operation.numberTags ?? []).length === 0 ? "" : ` (numbers only: ${operation.numberTags!.join(", ")})`
        }`
  }
}

/**
 * Describes a state: one line per alarm (run_at, wake_at, attempts, parked, retry_at, cursor) and the platform alarm.
 */
export const describeState = (state: ModelState): string => {
  const lines = Object.keys(state.rows).sort().map((storageId) => {
    const row = readRow(state.rows, storageId)!
    return `${storageId} run_at=${row.runAtMs} wake_at=${row.wakeAtMs} attempts=${row.attempts}${row.parked ? " PARKED" : ""} retry_at=${
      row.retryAtMs ?? "-"
    } cursor=${row.progress}${row.repeatEveryMs === null ? "" : ` every=${row.repeatEveryMs}`}`
  })
  lines.push(`platform alarm: ${state.platformAlarmMs ?? "absent"}; reports so far: ${state.reporterLog.length}`)
  return lines.join("\n")
}
