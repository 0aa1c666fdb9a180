/**
 * What the tests expect of each known-bad alarms implementation, shared by the in-process adapters'
 * test (`caught.test.ts`) and the Durable Object test (`caught-do-sqlite.test.ts`).
 */

import { UNCHANGED_ATTEMPT_BUDGET } from "../../../models/alarms/configuration.ts"

/** The alarms properties, by id. */
export type PropertyId = "alarms/model" | "alarms/faults" | "alarms/migration" | "alarms/race"

/**
 * Per bug: the properties to try, in order, until one fails (the suite catches the bug when any of its
 * properties does), and a bound on the steps of every minimized counterexample the failing run reports
 * (one per failed requirement; measured on all adapters, then set a little above). What the bug breaks
 * is declared with the bug itself (`breaks`), not here.
 */
export interface Expectation {
  readonly properties: ReadonlyArray<PropertyId>
  readonly maxSteps: number
  /**
   * The adapters on which the bug can show (absent: every adapter). A bug only truly concurrent
   * transactions reveal needs independent connections; elsewhere the known-bad behaves as shipped.
   */
  readonly adapters?: ReadonlyArray<string>
}

/**
 * The longest counterexample a parking bug can need when its scenario configured no smaller budget:
 * the schedule, then an advance and a failing dispatch per attempt of the default budget
 * (`UNCHANGED_ATTEMPT_BUDGET`), one more of each when the bug shows on the pass after parking. A shrinker
 * cannot add a configuration a failing scenario did not have, so which bound a run reaches depends on
 * whether its first failing scenario configured a small budget; both are minimal for their scenario.
 */
const PARKING_MAX_STEPS = 1 + 2 * (UNCHANGED_ATTEMPT_BUDGET + 1)

/**
 * The longest failing timeline (`failingTimeline` in arbitraries.ts): a configure, the schedule, then
 * an advance and a dispatch for each of at most 11 rounds. Its rounds shrink as a unit and each round
 * draws its own fault, so a bug a fault of a late round shows keeps every round before it.
 */
const FAILING_TIMELINE_MAX_STEPS = 2 + 2 * 11

const MODEL_FIRST: ReadonlyArray<PropertyId> = ["alarms/model", "alarms/faults", "alarms/migration"]
const FAULTS_FIRST: ReadonlyArray<PropertyId> = ["alarms/faults", "alarms/model", "alarms/migration"]
const RACE_FIRST: ReadonlyArray<PropertyId> = ["alarms/race", "alarms/model", "alarms/faults", "alarms/migration"]

/**
 * A failure-path bug the appended `narrowedSchema` unit shows (`properties/alarms/appended.ts`: a stored
 * row whose payload no longer decodes is a handler failure): the scenario's one chunk that cannot shrink
 * away (at most 3 commands), then the unit's stored schedule, the redeploy, maybe its later schedule, and
 * the dispatch. Measured 7 on postgres with suite 0.19.0, where that unit was the first failing scenario.
 */
const NARROWED_UNIT_MAX_STEPS = 3 + 4

/** A race counterexample: at most 3 due rows written, the race, and the lock race. */
const RACE_MAX_STEPS = 5

/** Whether the bug of `name` can show on `adapterName`. */
export const appliesOn = (name: string, adapterName: string): boolean => EXPECTATIONS[name]?.adapters?.includes(adapterName) ?? true

/** The expectation of each known-bad, by name. */
export const EXPECTATIONS: Readonly<Record<string, Expectation>> = {
  "h1-content-ack": { properties: MODEL_FIRST, maxSteps: 10 },
  "h2-fixed-retry": { properties: MODEL_FIRST, maxSteps: NARROWED_UNIT_MAX_STEPS },
  "h2-free-self-rearm": { properties: MODEL_FIRST, maxSteps: 9 },
  "h2-any-repeat": { properties: MODEL_FIRST, maxSteps: 3 },
  "h2-retry-rewrites-run-at": { properties: MODEL_FIRST, maxSteps: NARROWED_UNIT_MAX_STEPS },
  "h3-onfailure-skips-reschedule": { properties: MODEL_FIRST, maxSteps: NARROWED_UNIT_MAX_STEPS },
  "h4-detached-after-pass": { properties: FAULTS_FIRST, maxSteps: 5 },
  "h5-parked-from-budget": { properties: FAULTS_FIRST, maxSteps: PARKING_MAX_STEPS },
  "h6-dispatch-by-run-at": { properties: MODEL_FIRST, maxSteps: 12 },
  "h6-platform-alarm-run-at": { properties: MODEL_FIRST, maxSteps: NARROWED_UNIT_MAX_STEPS },
  "equal-cursor-reset": { properties: FAULTS_FIRST, maxSteps: 8 },
  "park-rereported": { properties: MODEL_FIRST, maxSteps: PARKING_MAX_STEPS },
  "report-before-commit": { properties: FAULTS_FIRST, maxSteps: PARKING_MAX_STEPS },
  "cancel-no-reconcile": { properties: FAULTS_FIRST, maxSteps: 4 },
  "wake-not-materialised": { properties: MODEL_FIRST, maxSteps: 9 },
  // Only the liveness phase delivers (and so consumes) the platform alarm: the faults property first.
  // Measured 8 on sqlite, 13 on pglite (a scenario with restarts and typed definitions).
  "spurious-wake-guard": { properties: FAULTS_FIRST, maxSteps: 14 },
  // Only a refused COMMIT (the `commitRefused` fault, or a `statementFails` fault in a transaction
  // that runs fewer statements, which is refused at COMMIT instead) shows it. Measured 4 steps on
  // sqlite; 22 on pglite and 20 on postgres, where the first failing scenario was a failing timeline
  // whose last round carried the fault: that timeline's bound.
  "serialization-failure-defect": { properties: FAULTS_FIRST, maxSteps: FAILING_TIMELINE_MAX_STEPS },
  // An external call racing a batch shows these in at most RACE_MAX_STEPS steps: the race property first.
  // The do-sqlite test tries the suite's order, where the older properties can find them first: a
  // parking timeline with a refused commit (report-before-commit's bound), a handler re-arming its
  // parked row (h1-content-ack's bound).
  "report-without-reread": { properties: RACE_FIRST, maxSteps: PARKING_MAX_STEPS },
  "ack-ignores-external-write": { properties: RACE_FIRST, maxSteps: 10 },
  // Only the `statementFails` fault (one of the scheduler's own statements fails) shows it.
  "reconcile-swallows-statement-failure": { properties: FAULTS_FIRST, maxSteps: PARKING_MAX_STEPS },
  // Only truly concurrent transactions on independent connections show it.
  "no-transaction-lock": { properties: ["alarms/race"], maxSteps: RACE_MAX_STEPS, adapters: ["postgres"] }
}
