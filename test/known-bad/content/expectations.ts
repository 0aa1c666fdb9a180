/**
 * What the tests expect of each known-bad content implementation, shared by the in-process adapters'
 * test (`caught.test.ts`) and the Durable Object test (`caught-do-sqlite.test.ts`).
 */

/** The content properties, by id. */
export type PropertyId = "content/model" | "content/faults" | "content/races"

/**
 * Per bug: the properties to try, in order, until one fails, and a bound on the steps of every
 * minimized counterexample (measured on all adapters, then set a little above).
 */
export interface Expectation {
  readonly properties: ReadonlyArray<PropertyId>
  readonly maxSteps: number
}

const MODEL_FIRST: ReadonlyArray<PropertyId> = ["content/model", "content/faults", "content/races"]
const FAULTS_FIRST: ReadonlyArray<PropertyId> = ["content/faults", "content/model", "content/races"]
const RACES_FIRST: ReadonlyArray<PropertyId> = ["content/races", "content/model", "content/faults"]

/** The expectation of each known-bad, by name. */
export const EXPECTATIONS: Readonly<Record<string, Expectation>> = {
  // Since 2026-12-05 caught first by the second race unit (`targeted.ts`: an upload or a grant racing a
  // sweep between its scan and its delete, (iii)), appended after the race timeline, which always runs
  // 5 commands and cannot shrink: upload, advance, race, read, sweep, then the unit's upload, advance,
  // race (8 steps, measured on sqlite, pglite and postgres; it was 4 when the timeline's own race caught it).
  "recheck-omitted": { properties: RACES_FIRST, maxSteps: 8 },
  "skew-omitted-horizon": { properties: MODEL_FIRST, maxSteps: 7 },
  "skew-omitted-attach": { properties: MODEL_FIRST, maxSteps: 5 },
  "scan-misses-key-range": { properties: MODEL_FIRST, maxSteps: 8 },
  // On postgres since 2026-12-07 the fifth race unit (a grant held between its read and its raise,
  // `readThenWrite`) can catch it first, after the race timeline's 5 commands: 8 steps.
  "grant-after-delete": { properties: RACES_FIRST, maxSteps: 8 },
  "chunks-separate-statement": { properties: FAULTS_FIRST, maxSteps: 5 },
  "deletes-without-transaction": { properties: FAULTS_FIRST, maxSteps: 5 },
  // Since 2026-12-06 sometimes caught first by the third unit (`targeted.ts`: deploys of another turn
  // budget, then a forced sweep), after one drawn command: 6 steps on postgres.
  "forced-sweep-recorded": { properties: MODEL_FIRST, maxSteps: 6 },
  "read-size-unchecked": { properties: MODEL_FIRST, maxSteps: 5 },
  "foreign-grant-accepted": { properties: MODEL_FIRST, maxSteps: 6 },
  "grant-trailing-parts-ignored": { properties: MODEL_FIRST, maxSteps: 6 },
  // Since 2026-12-04 also caught by the appended wrong-size stream (an upload streamed back asking for one
  // byte less or more), after at least one drawn command: measured 5 steps on sqlite and do-sqlite.
  "stream-unchecked": { properties: MODEL_FIRST, maxSteps: 6 },
  // As recheck-omitted: caught first by the second race unit, 8 steps on sqlite, pglite and postgres (was 4).
  "count-candidates": { properties: RACES_FIRST, maxSteps: 8 },
  "expiry-boundary-strict": { properties: MODEL_FIRST, maxSteps: 4 },
  "paging-skips-ties": { properties: MODEL_FIRST, maxSteps: 6 },
  "raise-swallows-statement-failure": { properties: FAULTS_FIRST, maxSteps: 6 },
  // Caught by the third unit (upload, a longer then a shorter turn deployed, a sweep inside the longest
  // turn's horizon) after one drawn command it cannot shrink away: 6 steps on sqlite, pglite and postgres.
  "turn-recorded-latest": { properties: MODEL_FIRST, maxSteps: 6 }
}
