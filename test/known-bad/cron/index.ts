/**
 * Every known-bad cron implementation: the five historical bugs of the reference page and nine of
 * our own (racing runners on Postgres are in `concurrent.ts`, a Postgres-only layout bug in `layout.ts`). The suite must report a
 * violation for each one, attributed to a requirement it breaks.
 */
import { b1RetargetWithoutReceipt, b2TickFromAdmission, b3ExpiryFromNow, b4UtcOnly, b5UnfencedSettle } from "./historical.ts"
import type { KnownBadCron } from "./kit.ts"
import { ambiguousWithoutDefault } from "./layout.ts"
import { claimMarksBeforeCommit } from "./refused.ts"
import { claimSwallowsStatementFailure } from "./statement.ts"
import { catchUpRewrite, claimsUndeclaredTypes, cronerIntervalDst, firstTransitionOnly, rawSpellingKeys, staleFromClaim } from "./subtle.ts"

export type { KnownBadCron } from "./kit.ts"

/** The known-bad implementations, each one swapped piece away from the shipped runtime. */
export const knownBadCrons: ReadonlyArray<KnownBadCron> = [
  b1RetargetWithoutReceipt,
  b2TickFromAdmission,
  b3ExpiryFromNow,
  b4UtcOnly,
  b5UnfencedSettle,
  claimsUndeclaredTypes,
  staleFromClaim,
  catchUpRewrite,
  cronerIntervalDst,
  firstTransitionOnly,
  rawSpellingKeys,
  claimMarksBeforeCommit,
  claimSwallowsStatementFailure,
  ambiguousWithoutDefault
]
