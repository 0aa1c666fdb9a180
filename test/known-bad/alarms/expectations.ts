/**
 * What the tests expect of each known-bad alarms implementation, shared by the in-process adapters'
 * test (`caught.test.ts`) and the Durable Object test (`caught-do-sqlite.test.ts`).
 */

/** The alarms properties, by id. */
export type PropertyId = "alarms/model" | "alarms/faults" | "alarms/migration"

/**
 * Per bug: the properties to try, in order, until one fails (the suite catches the bug when any of its
 * properties does); a bound on the minimized counterexample's steps (measured, then set a little
 * above); requirements related to the bug beyond those citing its own rules.
 */
export interface Expectation {
  readonly properties: ReadonlyArray<PropertyId>
  readonly maxSteps: number
  readonly alsoRelated: ReadonlyArray<string>
}

const MODEL_FIRST: ReadonlyArray<PropertyId> = ["alarms/model", "alarms/faults", "alarms/migration"]
const FAULTS_FIRST: ReadonlyArray<PropertyId> = ["alarms/faults", "alarms/model", "alarms/migration"]

export const EXPECTATIONS: Readonly<Record<string, Expectation>> = {
  "h1-content-ack": { properties: MODEL_FIRST, maxSteps: 10, alsoRelated: ["ALM-043", "ALM-035"] },
  "h2-fixed-retry": { properties: MODEL_FIRST, maxSteps: 5, alsoRelated: ["ALM-041", "ALM-044"] },
  "h2-free-self-rearm": { properties: MODEL_FIRST, maxSteps: 6, alsoRelated: ["ALM-014", "ALM-032", "ALM-043"] },
  "h2-any-repeat": { properties: MODEL_FIRST, maxSteps: 3, alsoRelated: ["ALM-049"] },
  "h2-retry-rewrites-run-at": { properties: MODEL_FIRST, maxSteps: 5, alsoRelated: ["ALM-044"] },
  "h3-onfailure-skips-reschedule": { properties: MODEL_FIRST, maxSteps: 6, alsoRelated: ["ALM-025", "ALM-044"] },
  "h4-detached-after-pass": { properties: FAULTS_FIRST, maxSteps: 5, alsoRelated: ["ALM-048"] },
  "h5-parked-from-budget": { properties: FAULTS_FIRST, maxSteps: 13, alsoRelated: ["ALM-044", "ALM-041"] },
  "h6-dispatch-by-run-at": { properties: MODEL_FIRST, maxSteps: 12, alsoRelated: ["ALM-045"] },
  "h6-platform-alarm-run-at": { properties: MODEL_FIRST, maxSteps: 5, alsoRelated: ["ALM-042"] },
  "equal-cursor-reset": { properties: FAULTS_FIRST, maxSteps: 8, alsoRelated: ["ALM-044"] },
  "park-rereported": { properties: MODEL_FIRST, maxSteps: 10, alsoRelated: ["ALM-041"] },
  "report-before-commit": { properties: FAULTS_FIRST, maxSteps: 6, alsoRelated: ["ALM-041"] },
  "cancel-no-reconcile": { properties: FAULTS_FIRST, maxSteps: 4, alsoRelated: ["ALM-042"] },
  "wake-not-materialised": { properties: MODEL_FIRST, maxSteps: 5, alsoRelated: ["ALM-044", "ALM-045"] }
}
