/**
 * What the tests expect of each known-bad alarms implementation, shared by the in-process adapters'
 * test (`caught.test.ts`) and the Durable Object test (`caught-do-sqlite.test.ts`).
 */

import { UNCHANGED_ATTEMPT_BUDGET } from "../../../models/alarms/configuration.ts"

/** The alarms properties, by id. */
export type PropertyId = "alarms/model" | "alarms/faults" | "alarms/migration"

/**
 * Per bug: the properties to try, in order, until one fails (the suite catches the bug when any of its
 * properties does), and a bound on the steps of every minimized counterexample the failing run reports
 * (one per failed requirement; measured on all adapters, then set a little above). What the bug breaks
 * is declared with the bug itself (`breaks`), not here.
 */
export interface Expectation {
  readonly properties: ReadonlyArray<PropertyId>
  readonly maxSteps: number
}

/**
 * The longest counterexample a parking bug can need when its scenario configured no smaller budget:
 * the schedule, then an advance and a failing dispatch per attempt of the default budget
 * (`UNCHANGED_ATTEMPT_BUDGET`), one more of each when the bug shows on the pass after parking. A shrinker
 * cannot add a configuration a failing scenario did not have, so which bound a run reaches depends on
 * whether its first failing scenario configured a small budget; both are minimal for their scenario.
 */
const PARKING_MAX_STEPS = 1 + 2 * (UNCHANGED_ATTEMPT_BUDGET + 1)

const MODEL_FIRST: ReadonlyArray<PropertyId> = ["alarms/model", "alarms/faults", "alarms/migration"]
const FAULTS_FIRST: ReadonlyArray<PropertyId> = ["alarms/faults", "alarms/model", "alarms/migration"]

/** The expectation of each known-bad, by name. */
export const EXPECTATIONS: Readonly<Record<string, Expectation>> = {
  "h1-content-ack": { properties: MODEL_FIRST, maxSteps: 10 },
  "h2-fixed-retry": { properties: MODEL_FIRST, maxSteps: 5 },
  "h2-free-self-rearm": { properties: MODEL_FIRST, maxSteps: 9 },
  "h2-any-repeat": { properties: MODEL_FIRST, maxSteps: 3 },
  "h2-retry-rewrites-run-at": { properties: MODEL_FIRST, maxSteps: 5 },
  "h3-onfailure-skips-reschedule": { properties: MODEL_FIRST, maxSteps: 6 },
  "h4-detached-after-pass": { properties: FAULTS_FIRST, maxSteps: 5 },
  "h5-parked-from-budget": { properties: FAULTS_FIRST, maxSteps: PARKING_MAX_STEPS },
  "h6-dispatch-by-run-at": { properties: MODEL_FIRST, maxSteps: 12 },
  "h6-platform-alarm-run-at": { properties: MODEL_FIRST, maxSteps: 5 },
  "equal-cursor-reset": { properties: FAULTS_FIRST, maxSteps: 8 },
  "park-rereported": { properties: MODEL_FIRST, maxSteps: PARKING_MAX_STEPS },
  "report-before-commit": { properties: FAULTS_FIRST, maxSteps: PARKING_MAX_STEPS },
  "cancel-no-reconcile": { properties: FAULTS_FIRST, maxSteps: 4 },
  "wake-not-materialised": { properties: MODEL_FIRST, maxSteps: 9 },
  // Only the liveness phase delivers (and so consumes) the platform alarm: the faults property first.
  "spurious-wake-guard": { properties: FAULTS_FIRST, maxSteps: 10 }
}
