/** Subtler cron bugs of our own, each the shipped runtime with one piece swapped. */
import { readInteger } from "../../../subjects/cron/dialect.ts"
import { cronerOnlyNextRun, nextRun, searchAcrossTransitions } from "../../../subjects/cron/next.ts"
import type { ParsedSpec } from "../../../subjects/cron/spec.ts"
import { knownBadCron } from "./kit.ts"

/** A runner claims `$cron:` rows of every actor type, declared here or not. */
export const claimsUndeclaredTypes = knownBadCron({
  name: "claims-undeclared-types",
  bug: "a runner claims cron ticks of actor types it does not declare",
  breaks: ["CRN-006"],
  pieces: { claimableTypes: () => null }
})

/** Staleness is measured from the claim's lease end (due_at) instead of the scheduled time, so late ticks still fire. */
export const staleFromClaim = knownBadCron({
  name: "stale-from-claim",
  bug: "staleness measured from the claim (due_at = claimed_until) instead of scheduled_at, so a tick past its skip window is delivered",
  breaks: ["CRN-011", "CRN-007"],
  pieces: { isStale: (nowMs, tick, skipMs) => nowMs - readInteger(tick.claimed_until) > skipMs }
})

/** The rewrite computes the next tick from the scheduled instant, replaying every missed instant one by one. */
export const catchUpRewrite = knownBadCron({
  name: "catch-up-rewrite",
  bug: "the rewrite after delivery is next(scheduled_at) instead of next(now), so missed instants are delivered one by one",
  breaks: ["CRN-011", "CRN-008"],
  pieces: { rewriteBaseMs: (_nowMs, tick) => readInteger(tick.scheduled_at) }
})

/** Croner's own DST semantics for interval patterns: wall times in a gap are skipped, a fold fires twice. */
export const cronerIntervalDst = knownBadCron({
  name: "croner-interval-dst",
  bug: "croner's interval-job DST rules taken as they are: a wildcard or list pattern skips a gap and fires on both passes of a fold",
  breaks: ["CRN-002", "CRN-015"],
  pieces: { nextInstant: cronerOnlyNextRun }
})

/**
 * `next` adapted to N2 at the first transition of a search only, then croner trusted: the shipped
 * `next` until 2026-12-04. A spec whose wall times the gap skips fires next year, and when next
 * year's gap skips them too, it answers the day after instead of the first instant after that gap.
 */
const firstTransitionOnlyNextRun = (parsed: ParsedSpec, afterMs: number): number =>
  parsed.kind === "every" ? nextRun(parsed, afterMs) : searchAcrossTransitions(parsed, afterMs, 1, (plainMs) => plainMs)

/** The shipped runtime with that `next`. */
export const firstTransitionOnly = knownBadCron({
  name: "first-transition-only",
  bug: "next looks at the first DST transition of a search only, so a search spanning a year misses the next year's gap",
  breaks: ["CRN-002", "CRN-015"],
  pieces: { nextInstant: firstTransitionOnlyNextRun }
})

/** Timer keys from the spelling as written: equivalent spellings get two rows and two deliveries. */
export const rawSpellingKeys = knownBadCron({
  name: "raw-spelling-keys",
  bug: "timer keys from the spec as written, so equivalent spellings are not one entry",
  breaks: ["CRN-001", "CRN-009"],
  pieces: { timerKeyOf: (parsed, spec, zone) => (parsed.kind === "every" ? `$cron:${spec.trim()}` : `$cron:${zone ?? "UTC"} ${spec.trim()}`) }
})
