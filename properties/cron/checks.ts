/**
 * The checks of one cron step, finest first: the call's result, one row per (actor, entry), the
 * shape and expiry of tick ids, the rows, the deliveries and the receipts. Each carries the rules
 * that decide it (the model's branch rules for the step's own observables).
 */
import type { Check } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import { CRON_PREFIX, type CronOutcome } from "../../models/cron/index.ts"
import { type NamedObservation, tickIdParts } from "./observe.ts"
import type { RawObservation } from "./observe.ts"
import { TIMING } from "./scenario.ts"

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Whether a row is a cron tick (N1: its timer key has the `$cron:` prefix); application intents are not. */
const isTick = (row: RawObservation["rows"][number]): boolean => row.timerKey !== null && row.timerKey.startsWith(CRON_PREFIX)

/** Tick ids of `raw` rows that are not `v1.<now>.<expiry>.<uuid v4>`, by (actor, key). */
const malformedIds = (raw: RawObservation): ReadonlyArray<Json> =>
  raw.rows.filter(isTick).flatMap((row) => {
    const parts = tickIdParts(row.intentId)
    return parts.version === "v1" && parts.nowMs !== null && parts.expiryMs !== null && UUID_V4.test(parts.uuid)
      ? []
      : [{ actorId: row.actorId, timerKey: row.timerKey, id: row.intentId }]
  })

/** Tick ids whose expiry is not max(dueAt, now) + retryWindow (dueAt as written: scheduled_at; a claim moves due_at). */
const wrongExpiries = (raw: RawObservation): ReadonlyArray<Json> =>
  raw.rows.filter(isTick).flatMap((row) => {
    const parts = tickIdParts(row.intentId)
    if (parts.nowMs === null || parts.expiryMs === null) return []
    const expected = Math.max(row.scheduledAtMs, parts.nowMs) + TIMING.retryWindowMs
    return parts.expiryMs === expected ? [] : [{ actorId: row.actorId, timerKey: row.timerKey, expiryMs: parts.expiryMs, expectedMs: expected }]
  })

/** Everything one step compares. */
export interface StepComparison {
  readonly outcome: CronOutcome
  readonly expectedResult: Json
  readonly actualResult: Json
  readonly expected: NamedObservation
  readonly actual: NamedObservation
  readonly actualRaw: RawObservation
}

/** The checks of one runner step. */
export const cronChecks = (comparison: StepComparison): ReadonlyArray<Check> => {
  const { outcome, expected, actual } = comparison
  return [
    { observable: "result", expected: comparison.expectedResult, actual: comparison.actualResult, rules: outcome.rules, why: outcome.why },
    { observable: "rows per (actor, timer key)", expected: expected.duplicates, actual: actual.duplicates, rules: ["I1", "N4", "N5"], why: "the timer-key unique index keeps one pending row per (actor, entry)" },
    { observable: "tick id shape", expected: [], actual: malformedIds(comparison.actualRaw), rules: ["N3"], why: "a tick id is v1.<now>.<expiry>.<uuid>" },
    { observable: "tick id expiry", expected: [], actual: wrongExpiries(comparison.actualRaw), rules: ["B3", "N3"], why: "a tick id expires retryWindow after max(dueAt, now)" },
    { observable: "outbox rows", expected: expected.rows, actual: actual.rows, rules: outcome.rowRules ?? outcome.rules, why: outcome.rowWhy ?? outcome.why },
    { observable: "deliveries", expected: expected.fired, actual: actual.fired, rules: outcome.rules, why: outcome.why },
    { observable: "receipts", expected: expected.receipts, actual: actual.receipts, rules: outcome.rules, why: outcome.why }
  ]
}
