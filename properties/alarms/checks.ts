/**
 * What the alarms properties compare after each command, finest first, and which rules govern each
 * observable: each `handled[i]` / `failed[i]` entry and each forked write, the call's result (value,
 * typed error tag, or crash), `getAlarmStatus` of every alarm of the id space, the `parked[i]` entries,
 * the reporter calls of the step, and the platform alarm. Pure: the loop (`harness/ModelBased.ts`)
 * takes the first mismatch and attributes it.
 */
import { canonical, type Check, jsonEqual } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import type { Json } from "../../harness/Property.ts"
import { type ModelState, type Prediction, predictStatuses, type StepOutcome, storageIdOf } from "../../models/alarms/index.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { expectedJson, refKey, touchedRefs, withoutReasons } from "./commands.ts"
import type { Command, RefSpec } from "./scenario.ts"
import { payloadOf } from "./storedState.ts"

/** The rules and reason of the last external write to an alarm (to attribute wrong row content). */
export interface Touch {
  readonly rules: ReadonlyArray<string>
  readonly why: string
  readonly stepIndex: number
}

/** The implementation's observable state after a step. */
export interface ObservedState {
  /** `getAlarmStatus` of the alarms the step asked the API about, keyed `tag:id` (the others absent). */
  readonly statuses: Readonly<Record<string, Json>>
  /** Every alarm's status as R28 derives it from its stored rows (`storedState.ts`), keyed `tag:id`. */
  readonly storedStatuses: Readonly<Record<string, Json>>
  /** Every alarm's stored payload and repeat (`storedState.ts`), keyed `tag:id`: what the status does not show. */
  readonly storedContents: Readonly<Record<string, Json>>
  /** Attempts rows without their scheduled row, read from storage (`storedState.ts`). */
  readonly orphanAttempts: ReadonlyArray<string>
  readonly platformAlarmMs: number | null
}

/** Everything one step's comparison reads. */
export interface StepComparison {
  readonly command: Command
  /** The model's step (predictions with rules). */
  readonly outcome: StepOutcome
  /** The model's state after the step. */
  readonly model: ModelState
  readonly actualResult: Json
  /** Storage ids handed to the handler or `onFailure`, in call order. */
  readonly visits: ReadonlyArray<string>
  readonly forkedOutcomes: ReadonlyArray<Json>
  readonly observed: ObservedState
  readonly modelStatuses: Readonly<Record<string, Json>>
  readonly reporterCalls: ReadonlyArray<Json>
  readonly lastTouch: ReadonlyMap<string, Touch>
}

/**
 * Rules deciding each field of a status, most specific first (existence is `exists`). Attempts come
 * before parking: parking follows from the attempts (R14), so when both differ the charge is the cause;
 * a parking bug alone (H5) shows with equal attempts.
 */
const FIELD_RULES: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["exists", ["R19", "R23", "R22", "H1"]],
  ["attempts", ["R13", "R25", "R19"]],
  ["parked", ["R14", "H5", "R25"]],
  ["retryAtMs", ["R15", "R25", "R2"]],
  ["runAtMs", ["R16", "R25", "R23", "E3"]]
]

const tagOf = (value: Json) => (value as { readonly _tag?: unknown } | null)?._tag

const predicted = (outcome: StepOutcome, observable: string): Prediction | undefined =>
  outcome.predictions.find((prediction) => prediction.observable === observable)

/** Whether the model (its `expectedResult`, `expectedJson` of its result) and the implementation both succeeded. */
const bothSucceeded = (c: StepComparison, expectedResult: Json) => tagOf(expectedResult) === "Success" && tagOf(c.actualResult) === "Success"

/**
 * The rules of a status disagreement: the rules of the first differing field that `context` names,
 * so the witness cites the rule that decided the wrong field; when none is named, `fallback` (else
 * the first differing field's rules).
 */
export const statusRules = (expected: Json, actual: Json, context: ReadonlyArray<string>, fallback?: ReadonlyArray<string>): ReadonlyArray<string> => {
  const field = (value: Json, name: string): unknown =>
    name === "exists" ? value !== null : value !== null && typeof value === "object" ? (value as { readonly [key: string]: Json })[name] : undefined
  // The first differing field in FIELD_RULES order is the cause; later fields usually follow from it.
  const differing = FIELD_RULES.filter(([name]) => !jsonEqual(field(expected, name), field(actual, name)))
  for (const [, candidates] of differing) {
    const named = context.filter((rule) => candidates.includes(rule))
    if (named.length > 0) return [...new Set(named)]
  }
  return fallback ?? differing[0]?.[1] ?? context
}

/** The dispatch entry (handled or failed) prediction concerning `ref`, if any. */
const entryPrediction = (predictions: ReadonlyArray<Prediction>, ref: { readonly tag: string; readonly id: string }): Prediction | undefined =>
  predictions.find((prediction) => {
    if (!/^(handled|failed)\[\d+\]$/.test(prediction.observable)) return false
    const expected = prediction.expected as { readonly id?: unknown; readonly tag?: unknown; readonly event?: { readonly id?: unknown; readonly tag?: unknown } | null }
    const event = prediction.observable.startsWith("failed") ? expected.event : expected
    return event !== null && event !== undefined && event.id === ref.id && event.tag === ref.tag
  })

/**
 * The call's result, compared by tag (a successful dispatch is compared entry by entry instead).
 * When the scripted reporter failed during the step and the result differs, the reporter's rule
 * decides: a failing reporter is swallowed (R27), whatever operation called it.
 */
const resultCheck = (c: StepComparison, expected: Json): Check => {
  const prediction = predicted(c.outcome, "result")!
  const reporterFailed = "reporterFails" in c.command && c.command.reporterFails === true && c.reporterCalls.length > 0
  if (reporterFailed && tagOf(expected) !== tagOf(c.actualResult)) {
    return {
      observable: "result",
      expected,
      actual: c.actualResult,
      rules: ["R27"],
      why: `the reporter failed during this step and a failing reporter is swallowed, so the call ends as the model says (${prediction.why})`
    }
  }
  return { observable: "result", expected, actual: c.actualResult, rules: prediction.rules, why: prediction.why }
}

/**
 * The selected rows the model skipped because they were gone or changed earlier in the batch (R22),
 * as seen through the handler and onFailure calls: none of them may be visited. Checked before the
 * order, so a stale row handed to the handler is named by R22, not by the order it broke too.
 */
const staleSkipCheck = (c: StepComparison): ReadonlyArray<Check> =>
  c.outcome.staleSkipped.length === 0 ? [] : [{
    observable: "selected rows gone or changed earlier in the batch, handed to the handler or onFailure",
    expected: [],
    actual: c.outcome.staleSkipped.filter((id) => c.visits.includes(id)),
    rules: ["R22"],
    why: `${c.outcome.staleSkipped.join(", ")} changed or went earlier in this batch, so each is re-read and skipped silently`
  }]

/**
 * Dispatch order, observable through the handler and onFailure calls (also when the call fails). A
 * migration that backfilled a wrong wake_at is caught before any dispatch, by the opening step's
 * stored wake_at check (R3), so a wrong order here is the dispatch's own.
 */
const dispatchOrderCheck = (c: StepComparison): Check => {
  const collapse = (ids: ReadonlyArray<string>) => ids.filter((id, position) => position === 0 || ids[position - 1] !== id)
  // Without an `onFailure` callback only the handler calls are seen (a row failing before its handler,
  // R22, R29, is visited by nobody).
  const withoutOnFailure = c.command.op === "dispatch" && c.command.options?.withoutOnFailure === true
  const expectedOrder = collapse(
    withoutOnFailure
      ? c.outcome.handlerCalls
      : c.outcome.transactions.map((transaction) => /^(handler|acknowledge|failure):(.*)$/.exec(transaction.label)?.[2]).filter((id): id is string => id !== undefined)
  )
  return {
    observable: "dispatch order (rows handed to the handler or onFailure)",
    expected: expectedOrder,
    actual: collapse(c.visits),
    rules: ["R21", "R22", "H6"],
    why: predicted(c.outcome, "handled")?.why ?? "due rows are dispatched by (wake_at, storage_id) up to the limit; rows changed earlier in the batch are skipped"
  }
}

/** A failed entry without its `causeTag` (what the row stored, apart from why the handler failed). */
const withoutCause = (entry: Json): Json => {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return entry
  const { causeTag: _causeTag, ...rest } = entry as { readonly [key: string]: Json }
  return rest
}

/** The `handled` and `failed` lists of a successful dispatch: order, then entry by entry, then whole. */
const dispatchListChecks = (c: StepComparison): ReadonlyArray<Check> => {
  const actualValue = (c.actualResult as { readonly value: { readonly [key: string]: ReadonlyArray<Json> } }).value
  const checks: Array<Check> = []
  for (const list of ["handled", "failed"] as const) {
    const expectedList = withoutReasons(predicted(c.outcome, list)!.expected) as ReadonlyArray<Json>
    const actualList = toJson(actualValue[list]) as ReadonlyArray<Json>
    const sorted = (values: ReadonlyArray<Json>) => values.map(canonical).sort().join("\n")
    // Same entries in another order: a dispatch-order violation, named as such.
    if (canonical(expectedList) !== canonical(actualList) && sorted(expectedList) === sorted(actualList)) {
      checks.push({ observable: `${list} order`, expected: expectedList, actual: actualList, rules: ["R21", "H6"], why: predicted(c.outcome, "handled")!.why })
    }
  }
  for (const prediction of c.outcome.predictions) {
    const match = /^(handled|failed)\[(\d+)\]$/.exec(prediction.observable)
    if (match === null) continue
    // Same alarm, other content: the row was stored wrongly by the last write that touched it. A
    // missing entry is the entry's own rule (the row was not handed over or did not fail as it should).
    const entryRef = prediction.expected as { readonly tag?: unknown; readonly id?: unknown }
    const actualEntry = actualValue[match[1]!]?.[Number(match[2])] ?? null
    const sameAlarm = (actualEntry as { readonly tag?: unknown; readonly id?: unknown } | null)?.id === entryRef.id &&
      (actualEntry as { readonly tag?: unknown } | null)?.tag === entryRef.tag
    // Only the failure's cause differs: the row was stored right, and the entry's own rules decide
    // why the handler failed (e.g. R4 for a write of the handler that did not commit).
    const causeOnly = sameAlarm && prediction.observable.startsWith("failed") &&
      jsonEqual(withoutCause(withoutReasons(prediction.expected)), withoutCause(toJson(actualEntry)))
    const touch = sameAlarm && !causeOnly && typeof entryRef.tag === "string" && typeof entryRef.id === "string"
      ? c.lastTouch.get(`${entryRef.tag}/${entryRef.id}`)
      : undefined
    checks.push({
      observable: prediction.observable,
      expected: withoutReasons(prediction.expected),
      actual: actualEntry,
      rules: touch === undefined ? prediction.rules : [...touch.rules, ...prediction.rules],
      why: touch === undefined ? prediction.why : `${prediction.why}; the row was last written at step ${touch.stepIndex}, where ${touch.why}`
    })
  }
  for (const list of ["handled", "failed"] as const) {
    const prediction = predicted(c.outcome, list)!
    checks.push({ observable: list, expected: withoutReasons(prediction.expected), actual: toJson(actualValue[list]), rules: prediction.rules, why: prediction.why })
  }
  return checks
}

/** Writes of fibers the handlers forked, after their pass ended. */
const forkedWriteChecks = (c: StepComparison): ReadonlyArray<Check> => [
  ...c.outcome.forkedWrites.map((expected, position): Check => {
    const prediction = predicted(c.outcome, `forkedWrite[${position}]`)
    return {
      observable: `forkedWrite[${position}]`,
      expected: expectedJson(expected),
      actual: c.forkedOutcomes[position] ?? null,
      rules: prediction?.rules ?? ["R9", "H4"],
      why: prediction?.why ?? "a handler's forked write after its pass"
    }
  }),
  {
    observable: "forkedWrites",
    expected: expectedJson(c.outcome.forkedWrites),
    actual: c.forkedOutcomes,
    rules: ["R9", "H4"],
    why: "writes of fibers forked by handlers run after the pass ended"
  }
]

/**
 * The H1 anomaly: the model's acknowledgement of this row was a no-op (the handler wrote it), and the
 * implementation's row differs from the model's but equals what the acknowledgement would have left.
 */
const ignoredOwnWrite = (c: StepComparison, storageId: string, expected: Json, actual: Json): boolean => {
  if (!Object.hasOwn(c.outcome.ackIgnoringWrite, storageId)) return false
  const ignoring = toJson(c.outcome.ackIgnoringWrite[storageId])
  return !jsonEqual(actual, expected) && jsonEqual(actual, ignoring)
}

/** What decided an alarm's current status, per `predictStatuses`. */
interface Provenance {
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

/**
 * One alarm's status as `observable` shows it (`actual`) against the model's, citing the rule that
 * decided the differing field.
 */
const statusCheck = (c: StepComparison, ref: RefSpec, observable: string, actual: Json, targeted: ReadonlySet<string>, provenance: ReadonlyMap<string, Provenance>): Check => {
  const key = refKey(ref)
  const entry = entryPrediction(c.outcome.predictions, ref)
  const known = provenance.get(storageIdOf(ref))
  const context = [...(entry?.rules ?? []), ...(known?.rules.filter((rule) => rule !== "R28") ?? []), "R28"]
  // An alarm this command wrote directly: the command's own attribution decides (e.g. a replay drop, R11).
  const direct = c.outcome.rules.length > 0 && targeted.has(key)
  const expected = c.modelStatuses[key]!
  if (ignoredOwnWrite(c, storageIdOf(ref), expected, actual)) {
    return {
      observable,
      expected,
      actual,
      rules: ["R23", "E6", "H1"],
      why: "the handler wrote its own row, so the revision-checked acknowledgement had to be a no-op; the row is exactly what an acknowledgement that ignored that write leaves"
    }
  }
  return {
    observable,
    expected,
    actual,
    rules: direct ? statusRules(expected, actual, c.outcome.rules, c.outcome.rules) : statusRules(expected, actual, context),
    why: direct ? c.outcome.why : entry?.why ?? known?.why ?? "no such alarm was ever stored"
  }
}

/**
 * Every alarm of the id space as stored (R28 over its rows), and `getAlarmStatus` of the alarms the
 * step asked the API about; each check cites the rule that decided the differing field.
 */
const statusChecks = (c: StepComparison): ReadonlyArray<Check> => {
  const provenance = new Map(predictStatuses(c.model).map((entry) => [entry.storageId, entry]))
  const targeted = new Set(touchedRefs(c.command).map(refKey))
  return VALID_REFS.flatMap((ref): ReadonlyArray<Check> => {
    const key = refKey(ref)
    const stored = statusCheck(c, ref, `stored status(${key})`, c.observed.storedStatuses[key]!, targeted, provenance)
    if (!Object.hasOwn(c.observed.statuses, key)) return [stored]
    const api = statusCheck(c, ref, `getAlarmStatus(${key})`, c.observed.statuses[key]!, targeted, provenance)
    return [stored, readsRowsRight(api, c.observed.storedStatuses[key]!)]
  })
}

/**
 * The rules that decide a stored row's payload and repeat, from the rules that decided the row: R16
 * when a min-merge kept them, R23 when an acknowledgement moved a repeat on, R25 when a failure
 * rescheduled the row, R3 when a migration carried them; otherwise R17 (a schedule replaces the row).
 */
const contentRules = (decidedBy: ReadonlyArray<string>): ReadonlyArray<string> => {
  const deciding = ["R16", "R23", "R25", "R3"].filter((rule) => decidedBy.includes(rule))
  return deciding.length > 0 ? deciding : ["R17"]
}

/**
 * Every alarm's stored payload (as its JSON value) and repeat against the model's row: a status shows
 * neither, so a min-merge that replaces what it had to keep (R16) was seen only at a later dispatch.
 */
const contentChecks = (c: StepComparison): ReadonlyArray<Check> =>
  VALID_REFS.map((ref): Check => {
    const key = refKey(ref)
    const row = c.model.rows[storageIdOf(ref)]
    return {
      observable: `stored payload and repeat(${key})`,
      expected: row === undefined ? null : { payload: payloadOf(row.payloadText), repeatEveryMs: row.repeatEveryMs },
      actual: c.observed.storedContents[key] ?? null,
      rules: row === undefined ? ["R19", "R23"] : contentRules(row.decidedBy.rules),
      why: row === undefined ? "no such alarm is stored" : `${row.decidedBy.why}; the scheduled row keeps the payload and repeat it was written with`
    }
  })

/**
 * A `getAlarmStatus` check whose alarm is stored exactly as the model predicts: the rows are right, so
 * a different answer is R28's alone (the status derived from the rows), never the rule that decided
 * the rows. `storedActual` must be read when the API's answer can no longer change them: after a
 * command step (the opening step's reads have migrated an older layout by then), or after the API's
 * reads in the opening step (an API read that migrates changes the rows, and its backfill is R3's).
 */
export const readsRowsRight = (api: Check, storedActual: Json): Check =>
  jsonEqual(storedActual, api.expected)
    ? { ...api, rules: ["R28"], why: "the stored rows are as predicted; getAlarmStatus must report them as R28 derives them: {attempts, parked, runAt = run_at, retryAt = raw retry_at}, undefined without a row" }
    : api

/** What `parkedReportJson` and the default reporter's logger add when a report is not upstream's. */
const REPORT_DEVIATIONS = ["tag", "extraFields", "logLevel"] as const

/**
 * The shape of every parked report of the step, in the result's `parked` list and to the reporter:
 * upstream's content-free `AlarmParked` (no other tag, no other field) and, from the default reporter,
 * a warning (R27). Checked apart from the reports' values, so that a wrong shape names R27 and not
 * the rules that decided when the alarm parked.
 */
const reportShapeCheck = (c: StepComparison, withResult: boolean): Check => {
  const listed = withResult ? (c.actualResult as { readonly value: { readonly parked?: ReadonlyArray<Json> } }).value.parked ?? [] : []
  const deviations = [...listed, ...c.reporterCalls].flatMap((report) => {
    const record: { readonly [key: string]: Json } = typeof report === "object" && report !== null && !Array.isArray(report) ? report as { readonly [key: string]: Json } : {}
    return REPORT_DEVIATIONS.filter((key) => Object.hasOwn(record, key)).map((key): Json => ({ [key]: record[key] ?? null }))
  })
  return {
    observable: "parked report shape",
    expected: [],
    actual: deviations,
    rules: ["R27"],
    why: "a parked report is upstream's content-free AlarmParked {attempts, retryAt}, and the default reporter logs it as a warning"
  }
}

/** The `parked` entries of a successful dispatch (content-free, so after the statuses that name the row). */
const parkedChecks = (c: StepComparison): ReadonlyArray<Check> => {
  const actualParked = (c.actualResult as { readonly value: { readonly parked: ReadonlyArray<Json> } }).value.parked
  const checks: Array<Check> = []
  for (const prediction of c.outcome.predictions) {
    const match = /^parked\[(\d+)\]$/.exec(prediction.observable)
    if (match === null) continue
    checks.push({ observable: prediction.observable, expected: prediction.expected, actual: actualParked[Number(match[1])] ?? null, rules: prediction.rules, why: prediction.why })
  }
  const prediction = predicted(c.outcome, "parked")!
  checks.push({ observable: "parked", expected: prediction.expected, actual: toJson(actualParked), rules: prediction.rules, why: prediction.why })
  return checks
}

/** The `mutations` list of a successful transaction's result, or [] (any other shape). */
const mutationOutcomes = (result: Json): ReadonlyArray<Json> => {
  const value = tagOf(result) === "Success" ? (result as { readonly value?: Json }).value : undefined
  const mutations = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as { readonly mutations?: Json }).mutations : undefined
  return Array.isArray(mutations) ? mutations : []
}

/**
 * Each misused handle call of a transaction that succeeded on both sides (R5: from a forked fiber, or
 * through the handle after its transaction, the call fails with `StorageOperationError` and writes
 * nothing), before the transaction's whole result, so a wrong misuse outcome names R5 and not the
 * transaction's atomicity.
 */
const misusedHandleChecks = (c: StepComparison, expectedResult: Json): ReadonlyArray<Check> => {
  if (c.command.op !== "transaction" || !bothSucceeded(c, expectedResult)) return []
  const expected = mutationOutcomes(expectedResult)
  const actual = mutationOutcomes(c.actualResult)
  return c.command.mutations.flatMap((mutation, index): ReadonlyArray<Check> =>
    mutation.misuse === undefined ? [] : [{
      observable: `mutations[${index}] (handle used ${mutation.misuse === "forkedFiber" ? "from a forked fiber" : "after its transaction"})`,
      expected: expected[index] ?? null,
      actual: actual[index] ?? null,
      rules: ["R5"],
      why: "a transaction handle works only on the closure's own fiber while the closure runs; any other use fails with StorageOperationError"
    }])
}

/**
 * Every check of one step, finest first. `expectedResult` is `expectedJson(c.outcome.result)`, which
 * the caller keeps for the step's record.
 *
 * @example firstMismatch(alarmsChecks(comparison, expectedJson(comparison.outcome.result))) // the witness, or undefined
 */
export const alarmsChecks = (c: StepComparison, expectedResult: Json): ReadonlyArray<Check> => {
  const dispatch = c.command.op === "dispatch"
  const succeeded = bothSucceeded(c, expectedResult)
  const result = resultCheck(c, expectedResult)
  const reporter = predicted(c.outcome, "reporterCalls")!
  const alarm = predicted(c.outcome, "platformAlarm")!
  return [
    // Order first: when rows were handed over in another order, a fault aimed at the n-th transaction
    // struck another row's transaction, and the result follows from that.
    ...(dispatch ? [...staleSkipCheck(c), dispatchOrderCheck(c)] : []),
    ...(tagOf(result.expected) !== tagOf(result.actual) ? [result] : []),
    reportShapeCheck(c, dispatch && succeeded),
    ...(dispatch && succeeded ? dispatchListChecks(c) : []),
    ...(dispatch ? forkedWriteChecks(c) : []),
    ...misusedHandleChecks(c, result.expected),
    ...(dispatch && succeeded ? [] : [result]),
    ...statusChecks(c),
    ...contentChecks(c),
    ...(dispatch && succeeded ? parkedChecks(c) : []),
    { observable: "reporter calls", expected: reporter.expected, actual: [...c.reporterCalls], rules: reporter.rules, why: reporter.why },
    { observable: "platform alarm", expected: alarm.expected, actual: c.observed.platformAlarmMs, rules: alarm.rules, why: alarm.why },
    {
      observable: "attempts rows without their scheduled row",
      expected: [],
      actual: [...c.observed.orphanAttempts],
      rules: ["R23", "R19"],
      why: "cancel and a one-shot acknowledgement delete the attempts row with the scheduled row, so no budget, parking or cursor outlives its alarm"
    }
  ]
}

/** Rules a successful command exercises that no model situation names (status reads, writes, batch results). */
export const observedRules = (command: Command, expectedResult: Json): ReadonlyArray<string> => {
  if (tagOf(expectedResult) !== "Success") return []
  const rules: Array<string> = ["R28"]
  if (command.op === "schedule" || command.op === "cancel") rules.push("R7")
  if (command.op === "schedule" || command.op === "transaction") rules.push("R17")
  if (command.op === "dispatch") rules.push("R26")
  return rules
}
