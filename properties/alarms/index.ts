/**
 * The alarms suite: the requirement catalog and the model-based properties that drive an alarms
 * implementation and the reference model side by side.
 *
 * - `alarms/model`: schedules (with and without cursors), min-merges, cancels, transactions (misused
 *   handles, failing closures), dispatch passes with scripted handlers (fail, self-rearm, cancel own
 *   row, forked writes, `onFailure` actions), reporter failures, configuration changes, restarts,
 *   clock jumps to the next wake and by up to days, invalid inputs, and failing timelines to parking.
 * - `alarms/faults`: the same plus faults: a crash inside a storage transaction, a crash between commit
 *   and report, a lost commit reply, a refused commit (a clean abort: the process goes on), a failing
 *   platform alarm write, redelivered platform alarms, restarts and evictions.
 * - `alarms/race` (`race.ts`): a `processDueAlarms` batch raced by an external schedule or cancel at
 *   hook points between its transactions, or by a uniform/PCT step schedule; and two schedulers on
 *   separate connections, truly concurrent where the adapter has independent connections (ALM-052/053).
 * - `alarms/migration`: the same starting from rows the harness wrote in one of upstream's two older
 *   layouts (before attempt tracking; attempt tracking without `wake_at`, with backing-off and parked
 *   attempts rows), see `legacyLayout.ts`; after the migration the persisted layout is compared with
 *   upstream's (`persistedLayout.ts`).
 *
 * Every scenario draws a swarm profile (`swarm.ts`: its own subset of command kinds and value ranges)
 * and may use typed definitions (`typed.ts`, R29); targeted timelines (`targeted.ts`) reach every
 * boundary, cross-field check, write order and pair of invalid inputs; units appended after every
 * other draw (`appended.ts`) park an alarm in the transaction a crash after commit breaks (R27),
 * pass a JavaScript caller's ill-typed inputs (R8, R24), back off to just below, at and past the parked
 * delay cap (R2, R25), and fail under a `retryFailedAfter` around the minimum retry delay (R20, R24);
 * in fault scenarios a unit of calls with one statement failing (`statementFaultTimeline.ts`, at an
 * ordinal drawn over that transaction's statements: `statementOrdinals.ts`) is appended too, and one
 * whose status and dispatch each have a read outside any transaction fail (`readFault`); every
 * scenario may end with a redeploy narrowing a tag's payload to numbers over a row stored before
 * (`narrowedSchema`, R29). `alarms/faults` and
 * `alarms/migration` end with the liveness phase (`livenessPhase.ts`: the harness delivers the platform
 * alarm as the platform does until every due alarm dispatched; ALM-050, ALM-051).
 *
 * @example
 * const suite = alarmsSuite() // the shipped implementation
 * const bad = alarmsSuite(myImplementation)
 */
import type { ExecutionTrace, PropertyDefinition } from "../../harness/Property.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { SITUATION_RULES } from "../../models/alarms/index.ts"
import { alarmRequirements } from "../../spec/alarms.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { alarmsScenario, type ScenarioShape } from "./arbitraries.ts"
import { executeAlarms } from "./execute.ts"
import { ALARMS_LIVENESS_REQUIREMENTS } from "./livenessPhase.ts"
import type { AlarmsScenario } from "./scenario.ts"
import { executeAlarmsRace } from "./race.ts"
import { ALARMS_RACE_INTERLEAVING, raceScenarioArbitrary } from "./raceScenario.ts"

/** The model's named situations, in its order: the rows of the alarms coverage table. */
export const ALARM_SITUATIONS: ReadonlyArray<string> = Object.keys(SITUATION_RULES)

/** Every requirement id of the catalog (each property can witness any of them failing). */
const ALL_REQUIREMENTS: ReadonlyArray<string> = alarmRequirements.map((requirement) => requirement.id)

/** Requirements only reachable from older-layout rows. */
const MIGRATION_ONLY: ReadonlyArray<string> = ["ALM-003", "ALM-047"]

/** Requirements only a race reaches (`alarms/race`). */
const RACE_ONLY: ReadonlyArray<string> = ["ALM-052", "ALM-053"]

/** What `alarms/race` witnesses: the race requirements and what a race's outcome is decided by. */
const RACE_REQUIREMENTS: ReadonlyArray<string> = ["ALM-052", "ALM-053", "ALM-004", "ALM-006", "ALM-011", "ALM-022", "ALM-023", "ALM-025", "ALM-026", "ALM-027", "ALM-028"]

/** Shapes of the three properties. */
export const ALARMS_SHAPES = {
  model: { faults: false, legacy: false, maxChunks: 10 },
  faults: { faults: true, legacy: false, maxChunks: 10 },
  // Faults too: migration runs inside each transaction, so a crash in the first one leaves the older layout.
  migration: { faults: true, legacy: true, maxChunks: 8 }
} as const satisfies Record<string, ScenarioShape>

/** Properties that end with the liveness phase (after a fault window: the ones with faults). */
const WITH_LIVENESS: ReadonlyArray<string> = ["alarms/faults", "alarms/migration"]

const property = (
  implementation: AlarmsImplementation,
  id: string,
  title: string,
  shape: ScenarioShape,
  requirements: ReadonlyArray<string>
): PropertyDefinition<any> => ({
  id,
  subject: "alarms",
  title,
  requirements,
  needs: [],
  implementation: implementation.name,
  scenario: () => alarmsScenario(shape),
  execute: (scenario: AlarmsScenario, environment) => executeAlarms(implementation, { liveness: WITH_LIVENESS.includes(id) })(scenario, environment),
  truncate: truncateAlarmsScenario
})

/**
 * The commands of a failing scenario that ran: one step per command, after a step 0 for opening the
 * older layout when the scenario has legacy rows. Timelines are generated as units, so shrinking can
 * leave commands after the divergence; they never ran and only lengthen the replay token.
 */
export const truncateAlarmsScenario = (scenario: AlarmsScenario, trace: ExecutionTrace): AlarmsScenario => {
  const openingSteps = (scenario.legacyRows ?? []).length > 0 ? 1 : 0
  const ran = Math.max(0, trace.steps.length - openingSteps)
  return ran >= scenario.commands.length ? scenario : { ...scenario, commands: scenario.commands.slice(0, ran) }
}

/**
 * The alarms suite bound to `implementation` (default: the shipped one). The suite's
 * `implementation` is the implementation's name.
 */
export const alarmsSuite = (implementation: AlarmsImplementation = shippedAlarms): SubjectSuite => ({
  subject: "alarms",
  implementation: implementation.name,
  requirements: alarmRequirements,
  properties: [
    property(
      implementation,
      "alarms/model",
      "scheduler vs model: schedules, cancels, transactions, dispatch passes with scripted handlers, configuration, clock",
      ALARMS_SHAPES.model,
      ALL_REQUIREMENTS.filter((id) => !MIGRATION_ONLY.includes(id) && !ALARMS_LIVENESS_REQUIREMENTS.includes(id) && !RACE_ONLY.includes(id))
    ),
    property(
      implementation,
      "alarms/faults",
      "scheduler vs model under crashes inside and after commit, failing platform alarm writes, redelivery and restarts",
      ALARMS_SHAPES.faults,
      ALL_REQUIREMENTS.filter((id) => !MIGRATION_ONLY.includes(id) && !RACE_ONLY.includes(id))
    ),
    property(
      implementation,
      "alarms/migration",
      "scheduler vs model starting from rows of both older layouts (before attempt tracking; attempts without wake_at)",
      ALARMS_SHAPES.migration,
      ALL_REQUIREMENTS.filter((id) => !RACE_ONLY.includes(id))
    ),
    {
      id: "alarms/race",
      subject: "alarms",
      title: "processDueAlarms raced by an external schedule or cancel at hook points between its transactions (or by a PCT/uniform step schedule), and scheduler transactions on separate connections serialized by the transaction lock",
      requirements: RACE_REQUIREMENTS,
      needs: [],
      connections: 3,
      interleaving: ALARMS_RACE_INTERLEAVING,
      implementation: implementation.name,
      scenario: () => raceScenarioArbitrary(),
      execute: executeAlarmsRace(implementation)
    }
  ],
  situations: ALARM_SITUATIONS
})
