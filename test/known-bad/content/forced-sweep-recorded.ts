/**
 * Own: a forced sweep goes through the hourly claim, so it records the tenants as swept (the hourly
 * schedule then skips them) and skips tenants swept within the hour.
 *
 * Breaks the sweep schedule (CNT-007) and, when a skipped tenant had deletable content, the upper
 * bound (CNT-015).
 */
import { knownBadContent } from "./kit.ts"

/** Forced sweeps claim like hourly ones. */
export const forcedSweepRecorded = knownBadContent({
  name: "forced-sweep-recorded",
  bug: "a forced sweep claims tenants like the hourly pass: it records them and skips recently swept ones",
  breaks: ["CNT-007", "CNT-015"],
  pieces: {
    tenantsOfPass: (statements, _force, nowMs, intervalMs, limit) => statements.sql.withTransaction(statements.claimTenants(nowMs, nowMs - intervalMs, limit))
  }
})
