/**
 * The five real bugs of the cron scheduler's history (reference page `cron.md`, B1-B5 in page order),
 * each the shipped runtime with one piece swapped.
 */
import { Effect } from "effect"
import { readInteger } from "../../../subjects/cron/dialect.ts"
import { nextRun } from "../../../subjects/cron/next.ts"
import { knownBadCron } from "./kit.ts"

/** B1: a retargeted tick is delivered without checking for a receipt, so it fires twice for one instant. */
export const b1RetargetWithoutReceipt = knownBadCron({
  name: "b1-retarget-without-receipt",
  bug: "B1: no receipt check before delivering a changed command (retarget double-fire)",
  breaks: ["CRN-012", "CRN-007", "CRN-010"],
  pieces: { firedBefore: () => Effect.succeed(false) }
})

/** B2: the first tick is computed from the turn's admission time instead of the time of the write. */
export const b2TickFromAdmission = knownBadCron({
  name: "b2-tick-from-admission",
  bug: "B2: first tick timed from admission instead of from the write",
  breaks: ["CRN-013", "CRN-004"],
  pieces: { turnTickTimeMs: (admittedAtMs) => admittedAtMs }
})

/** B3: a tick id's expiry is counted from now instead of from the scheduled time. */
export const b3ExpiryFromNow = knownBadCron({
  name: "b3-expiry-from-now",
  bug: "B3: tick id expiry counted from now instead of from the scheduled time",
  breaks: ["CRN-014", "CRN-003"],
  pieces: { tickIdExpiryMs: (nowMs, _dueAtMs, retryWindowMs) => nowMs + retryWindowMs }
})

/** B4: schedules are evaluated in UTC whatever their zone. */
export const b4UtcOnly = knownBadCron({
  name: "b4-utc-only",
  bug: "B4: UTC-only schedules (wrong instants across DST in a zone)",
  breaks: ["CRN-015", "CRN-002"],
  pieces: { nextInstant: (parsed, afterMs) => nextRun(parsed.kind === "cron" ? { ...parsed, zone: "UTC" } : parsed, afterMs) }
})

/** B5: settling writes are not fenced on the claim, so a runner whose lease passed rewrites a row another holds. */
export const b5UnfencedSettle = knownBadCron({
  name: "b5-unfenced-settle",
  bug: "B5: settling writes not fenced on the claim (a runner whose lease expired rewrote a row another runner holds)",
  breaks: ["CRN-016", "CRN-008"],
  pieces: { claimFence: (sql, tick) => sql`intent_id = ${tick.intent_id} AND ${readInteger(tick.claimed_until)} = ${readInteger(tick.claimed_until)}` }
})
