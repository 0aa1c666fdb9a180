/**
 * What the tests expect of each known-bad clocks implementation: the properties to try, in order,
 * until one fails, a bound on the steps of every minimized counterexample (measured on all adapters:
 * 1 to 8; a scenario has at most 8 commands, `clocks/faults` 8 plus a 2-command statement-fault timeline, and a 2-command journal outage or a 4-command failed sweep read, the liveness property 7 plus its liveness step), and, for the liveness bugs, the liveness requirements the failure must be
 * reported under (they must be caught by the liveness check, not by accident).
 */

/** The clocks properties, by id. */
export type PropertyId = "clocks/model" | "clocks/faults" | "clocks/concurrent" | "clocks/liveness"

/** One known-bad's expectation. */
export interface Expectation {
  readonly properties: ReadonlyArray<PropertyId>
  readonly maxSteps: number
  /** When set, every reported requirement must be one of these (liveness bugs). */
  readonly reportedUnder?: ReadonlyArray<string>
}

const MODEL_FIRST: ReadonlyArray<PropertyId> = ["clocks/model", "clocks/faults", "clocks/liveness"]
const FAULTS_FIRST: ReadonlyArray<PropertyId> = ["clocks/faults", "clocks/model", "clocks/liveness"]
const LIVENESS_ONLY: ReadonlyArray<PropertyId> = ["clocks/liveness"]
/** A race bug: only the generated release orders of two processes' fires reach it. */
const CONCURRENT_ONLY: ReadonlyArray<PropertyId> = ["clocks/concurrent"]

/** The expectation of each known-bad, by name. */
export const EXPECTATIONS: Readonly<Record<string, Expectation>> = {
  "b1a-cas-before-completion": { properties: FAULTS_FIRST, maxSteps: 8 },
  "b1b-resume-only-first-write": { properties: LIVENESS_ONLY, maxSteps: 8, reportedUnder: ["CLK-021"] },
  "b1c-sweep-due-only": { properties: LIVENESS_ONLY, maxSteps: 8, reportedUnder: ["CLK-020"] },
  "b1d-no-wake-redelivery": { properties: LIVENESS_ONLY, maxSteps: 8, reportedUnder: ["CLK-021"] },
  "b3-no-fire-retry": { properties: FAULTS_FIRST, maxSteps: 8 },
  "fire-retry-gives-up": { properties: FAULTS_FIRST, maxSteps: 8 },
  "sweep-read-failure-swallowed": { properties: FAULTS_FIRST, maxSteps: 8 },
  "b4-lossy-lifecycle": { properties: MODEL_FIRST, maxSteps: 8 },
  "b5-flush-failure-propagates": { properties: MODEL_FIRST, maxSteps: 8 },
  "b8-record-apart": { properties: FAULTS_FIRST, maxSteps: 8 },
  "b9-no-clock-completed-record": { properties: MODEL_FIRST, maxSteps: 8 },
  "cas-unconditional": { properties: MODEL_FIRST, maxSteps: 8 },
  "last-writer-wins": { properties: MODEL_FIRST, maxSteps: 8 },
  "relative-deadline": { properties: MODEL_FIRST, maxSteps: 8 },
  "consume-every-read": { properties: MODEL_FIRST, maxSteps: 8 },
  "waiting-unchecked": { properties: MODEL_FIRST, maxSteps: 8 },
  "intended-after-effect": { properties: FAULTS_FIRST, maxSteps: 8 },
  "rearm-fired-clock": { properties: MODEL_FIRST, maxSteps: 8 },
  "unstable-wake-id": { properties: MODEL_FIRST, maxSteps: 8 },
  "cas-owner-fenced": { properties: CONCURRENT_ONLY, maxSteps: 8 },
  "consume-swallows-statement-failure": { properties: FAULTS_FIRST, maxSteps: 8 },
  "flush-failure-unlogged": { properties: MODEL_FIRST, maxSteps: 8 }
}
