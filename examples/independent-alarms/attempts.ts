/**
 * Attempt accounting of a schedule (R12-R15): budget, parking and the retry time.
 */
import type { ResolvedScheduleConfiguration } from "../../subjects/alarms/api.ts"
import { retryDelayMs } from "./config.ts"
import type { StoredAlarm } from "./store.ts"

/** What decides the attempt state of one schedule. */
export interface ScheduleFacts {
  readonly storageId: string
  readonly existing: StoredAlarm | undefined
  /** The row of the current handler pass (its pass-start snapshot), if any. */
  readonly source: StoredAlarm | undefined
  /** The stored cursor baseline: `existing ?? source ?? -1`. */
  readonly progress: number
  readonly inputProgress: number | undefined
  readonly nowMs: number
}

/** The attempt state a schedule writes (progress is decided by the caller). */
export interface ScheduledAttempts {
  readonly attempts: number
  readonly parked: boolean
  readonly retryAt: number | null
}

const chargedAttempts = (facts: ScheduleFacts, budget: number): number => {
  const { existing, source } = facts
  const progressed = facts.inputProgress !== undefined && facts.inputProgress > facts.progress
  const sourceProgressed = source !== undefined && facts.storageId === source.storageId &&
    facts.progress > source.progress
  if (source === undefined || progressed || sourceProgressed) return 0
  if (source.parked || existing?.parked === true) return Math.max(source.attempts, existing?.attempts ?? 0)
  return Math.min(budget, Math.max(source.attempts + 1, existing?.attempts ?? 0))
}

/**
 * R13: fresh budget outside a pass or on progress; no charge while parked; else one charge per pass
 * (from the pass-start snapshot). R14: parking is sticky. R15: retry time from the curve.
 */
export const scheduledAttempts = (
  facts: ScheduleFacts,
  configuration: ResolvedScheduleConfiguration
): ScheduledAttempts => {
  const budget = configuration.unchangedAttemptBudget
  const attempts = chargedAttempts(facts, budget)
  const parked = attempts > 0 &&
    (attempts >= budget || facts.source?.parked === true || facts.existing?.parked === true)
  const retryAt = attempts === 0 ? null : facts.nowMs + retryDelayMs(attempts, parked, configuration)
  return { attempts, parked, retryAt }
}
