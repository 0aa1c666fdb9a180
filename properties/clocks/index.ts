/**
 * The clocks suite: the requirement catalog and the properties that drive a clocks implementation.
 *
 * - `clocks/model`: schedules, completions (first writer, if-waiting), consumptions, the live timer
 *   under virtual time, restarts with their registration sweep, sweeps, rewinds (with and without
 *   their records), a latched lossy sink and effect boundaries, every step compared with the model.
 * - `clocks/faults`: the same under storage faults (crash inside or after the n-th transaction, lost
 *   reply) and failing journal writes, on every call whose transactions are deterministic, fires included.
 * - `clocks/concurrent`: a second engine process B sweeps the same storage and arms the same clocks,
 *   so both processes fire each clock at the same instant. Advances carry a generated race
 *   (`race.ts`): both fires pause at `clocks.fire.begin` and are released in a generated, shrinking
 *   order, the second at once or held for a lag; on engines with independent connections and row
 *   locks the second may run into the first's open transaction (a lock wait seen through
 *   `pg_blocking_pids`). Both processes also schedule one clock at once (`scheduleRace.ts`, C8): one
 *   after the other, or on such engines the second's transaction running into the first's open one.
 *   In half the scenarios both then read one completion at once (`resultRace.ts`, C7): the read that
 *   starts first is held before its transaction while virtual time moves on and the other reads.
 *   Three connections: A's, B's and the observer's.
 * - `clocks/liveness`: faults, the idempotence guarantee's invariants after every step (no model),
 *   then the run to quiescence and the liveness requirements (`harness/Liveness.ts`).
 *
 * @example
 * const suite = clocksSuite() // the shipped implementation
 */
import type { PropertyDefinition } from "../../harness/Property.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { CLOCKS_SITUATION_NEEDS, CLOCKS_SITUATIONS } from "../../models/clocks/index.ts"
import { clockRequirements } from "../../spec/clocks.ts"
import type { ClocksImplementation } from "../../subjects/clocks/api.ts"
import { shippedClocks } from "../../subjects/clocks/index.ts"
import { type ClocksScenario, clocksScenario, type ScenarioShape } from "./arbitraries.ts"
import { type Comparison, executeClocks } from "./execute.ts"

/** The requirement on upstream's span names, which every model-compared step checks (`spanCheck.ts`). */
const SPAN_REQUIREMENT = "CLK-023"
/** Requirements the model-compared properties witness (C1-C13, and upstream's span names). */
const RULE_REQUIREMENTS = clockRequirements.map((requirement) => requirement.id).filter((id) => id <= "CLK-015" || id === SPAN_REQUIREMENT)
/** Requirements of the liveness property (the guarantee's invariants and liveness). */
const GUARANTEE_REQUIREMENTS = clockRequirements.map((requirement) => requirement.id).filter((id) => id > "CLK-015" && id !== SPAN_REQUIREMENT)

/** Shapes of the four properties. */
export const CLOCKS_SHAPES = {
  model: { faults: false, faultsOnB: false, secondProcess: false, races: false, rowOnlyRewinds: true, statementFaults: false, appendedFaultUnits: false, maxCommands: 8 },
  faults: { faults: true, faultsOnB: false, secondProcess: false, races: false, rowOnlyRewinds: true, statementFaults: true, appendedFaultUnits: true, maxCommands: 8 },
  concurrent: { faults: false, faultsOnB: true, secondProcess: true, races: true, rowOnlyRewinds: false, statementFaults: false, appendedFaultUnits: false, maxCommands: 6 },
  liveness: { faults: true, faultsOnB: false, secondProcess: false, races: false, rowOnlyRewinds: false, statementFaults: false, appendedFaultUnits: false, maxCommands: 7 }
} as const satisfies Record<string, ScenarioShape>

const property = (
  implementation: ClocksImplementation,
  id: string,
  title: string,
  shape: ScenarioShape,
  comparison: Comparison,
  requirements: ReadonlyArray<string>,
  connections = 1
): PropertyDefinition<any> => ({
  id,
  subject: "clocks",
  title,
  requirements,
  needs: [],
  implementation: implementation.name,
  connections,
  scenario: () => clocksScenario(shape),
  // The journal probe's answers do not depend on the scenario: one property asks them (`journalProbe.ts`).
  execute: (scenario: ClocksScenario, environment) => executeClocks(implementation, comparison, { probeJournal: id === "clocks/model" })(scenario, environment),
  truncate: (scenario: ClocksScenario, trace) =>
    trace.steps.length >= scenario.commands.length ? scenario : { ...scenario, commands: scenario.commands.slice(0, trace.steps.length) }
})

/** The clocks suite bound to `implementation` (default: the shipped one). */
export const clocksSuite = (implementation: ClocksImplementation = shippedClocks): SubjectSuite => ({
  subject: "clocks",
  implementation: implementation.name,
  requirements: clockRequirements,
  properties: [
    property(implementation, "clocks/model", "engine vs model: schedules, completions, consumptions, live timers, restarts, sweeps, rewinds, effect boundaries", CLOCKS_SHAPES.model, "model", RULE_REQUIREMENTS),
    property(implementation, "clocks/faults", "engine vs model under crashes inside and after commit, lost replies and failing journal writes, fires included", CLOCKS_SHAPES.faults, "model", RULE_REQUIREMENTS),
    property(implementation, "clocks/concurrent", "two engine processes firing the same clocks at once (separate connections where the adapter has them)", CLOCKS_SHAPES.concurrent, "model", RULE_REQUIREMENTS, 3),
    property(implementation, "clocks/liveness", "idempotence invariants after every step under faults, then the run to quiescence and liveness", CLOCKS_SHAPES.liveness, "invariants", GUARANTEE_REQUIREMENTS)
  ],
  situations: CLOCKS_SITUATIONS,
  situationNeeds: CLOCKS_SITUATION_NEEDS
})
