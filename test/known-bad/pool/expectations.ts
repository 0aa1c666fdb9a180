/**
 * What the tests expect of each known-bad pool: a bound on the steps of every minimized
 * counterexample its failing run reports (measured on postgres, then set a little above; the closing
 * probe counts as a step). What the bug breaks is declared with the bug itself (`breaks`).
 */

/** The expectation of one known-bad. */
export interface Expectation {
  readonly maxSteps: number
}

/** The expectation of each known-bad, by name. */
export const EXPECTATIONS: Readonly<Record<string, Expectation>> = {
  "free-count-gate": { maxSteps: 4 },
  "handover-slot-lost": { maxSteps: 4 },
  "slot-freed-and-handed-over": { maxSteps: 4 },
  "admission-after-gate": { maxSteps: 3 },
  "retry-after-statement": { maxSteps: 3 },
  "rollback-commit-success": { maxSteps: 4 },
  "notify-on-caller-transaction": { maxSteps: 4 },
  "retry-fixed-delay": { maxSteps: 8 },
  "retry-jittered": { maxSteps: 5 },
  "channel-limit-in-characters": { maxSteps: 3 },
  "notify-payload-as-json": { maxSteps: 4 },
  "uninterruptible-gate-wait": { maxSteps: 4 }
}
