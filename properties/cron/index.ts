/**
 * The cron suite: the requirement catalog and the model-based properties that drive a cron
 * implementation and the reference model side by side.
 *
 * - `cron/model`: two runners declaring (and redeploying) entries in zones with a DST gap or fold
 *   (New York, London), a 30-minute shift (Lord Howe), a zone 5:45 off UTC (Kathmandu) and `@every`;
 *   turns, bootstraps (one runner, or all at once: truly concurrent transactions on adapters with
 *   independent connections), claims and settling phases interleaved between runners, leases running
 *   out mid-delivery, stale ticks, and virtual time across the transition; `next` of every declared
 *   entry compared with the model's brute-force scan at probe instants.
 * - `cron/faults`: the same plus storage faults (a crash inside or right after a phase's transaction,
 *   a lost reply, a refused COMMIT after which the runner goes on, a failed statement), including
 *   crashes between the receipt and the rewrite, a failed statement in a turn's or bootstrap's tick
 *   write (`statementFaults.ts`, in every scenario), and restarts.
 * Turns run through `runTurn`, or (`ownTurns`) in the application's own transaction calling `writeTicks`.
 * Each step reports the model's named situations it reached (`CRON_SITUATIONS`), for the coverage
 * table; the three about transactions really overlapping are listed only on adapters with independent
 * connections (`realised.ts`).
 *
 * @example const suite = cronSuite() // the shipped implementation
 */
import type { ExecutionTrace, PropertyDefinition } from "../../harness/Property.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { CRON_SITUATIONS } from "../../models/cron/index.ts"
import { cronRequirements } from "../../spec/cron.ts"
import type { CronImplementation } from "../../subjects/cron/api.ts"
import { shippedCron } from "../../subjects/cron/index.ts"
import { cronScenario, type ScenarioShape } from "./arbitraries.ts"
import { executeCron } from "./execute.ts"
import { CRON_SITUATION_NEEDS } from "./realised.ts"
import { type CronScenario, RUNNERS, runningCommands } from "./scenario.ts"

const ALL_REQUIREMENTS: ReadonlyArray<string> = cronRequirements.map((requirement) => requirement.id)

/** Shapes of the two properties. */
export const CRON_SHAPES = {
  model: { faults: false, maxEpisodes: 3 },
  faults: { faults: true, maxEpisodes: 3 }
} as const satisfies Record<string, ScenarioShape>

/**
 * The commands of a failing scenario that ran (the loop stops at the divergence): the shortest prefix
 * whose running commands (`runningCommands`: a refused claim adds the runner's next poll) cover the
 * trace's steps.
 */
export const truncateCronScenario = (scenario: CronScenario, trace: ExecutionTrace): CronScenario => {
  for (let kept = 0; kept < scenario.commands.length; kept++) {
    const prefix = { ...scenario, commands: scenario.commands.slice(0, kept) }
    if (runningCommands(prefix).length >= trace.steps.length) return prefix
  }
  return scenario
}

const property = (implementation: CronImplementation, id: string, title: string, shape: ScenarioShape): PropertyDefinition<any> => ({
  id,
  subject: "cron",
  title,
  requirements: ALL_REQUIREMENTS,
  needs: [],
  implementation: implementation.name,
  // One session per runner, and one more to watch theirs from (races: pg_blocking_pids).
  connections: RUNNERS + 1,
  scenario: () => cronScenario(shape),
  execute: (scenario: CronScenario, environment) => executeCron(implementation)(scenario, environment),
  truncate: truncateCronScenario
})

/** The cron suite bound to `implementation` (default: the shipped one). */
export const cronSuite = (implementation: CronImplementation = shippedCron): SubjectSuite => ({
  subject: "cron",
  implementation: implementation.name,
  requirements: cronRequirements,
  properties: [
    property(implementation, "cron/model", "cron ticks vs model: zones across DST, @every, two runners claiming and settling, leases, stale ticks, retargeting", CRON_SHAPES.model),
    property(implementation, "cron/faults", "cron ticks vs model under crashes inside and after each phase's transaction (between receipt and rewrite), lost replies, refused commits and restarts", CRON_SHAPES.faults)
  ],
  situations: CRON_SITUATIONS,
  situationNeeds: CRON_SITUATION_NEEDS
})
