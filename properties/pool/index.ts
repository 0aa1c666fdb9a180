/**
 * The pool suite: the requirement catalog and the model-based property that drives a bounded pool
 * and the pool model side by side on a real Postgres server.
 *
 * Two properties, one scenario language with different weights (`arbitraries.ts`):
 * - `pool/model`: pools of 1-4 connections; acquire, transaction, borrowed-statement, listen and
 *   notify checkouts (retried through `retryPoolRefusal`, failing on the server, nested in a holding
 *   transaction, with channel names over 63 bytes); releases with an immediate re-checkout by the
 *   same fiber; interruptions while waiting, at the moment of the hand-over and while holding;
 *   floods to the admission bound and past it; virtual time for the retry helper; and a closing
 *   probe that every slot came back.
 * - `pool/admission`: the same, weighted toward floods to the bound and past it, retried checkouts and
 *   virtual time (the retry helper's delays).
 *
 * Both run up to two surface probes first, on the same pool (`surfaceScenario.ts`): foreign failures
 * given to the retry helper (P7), the refusal's error value past the admission bound (P1), channels at
 * the 63-byte boundary on listen and notify (P6), and each client entry point alone or inside a
 * transaction (value rows, unprepared statements, streams, JSON, savepoints, an aborted commit: P4,
 * P5); the pool is built with or without a row-name transform. Three probes build a pool of their own:
 * from a caller's config, compared with upstream's `PgClient.make` (span attributes, POL-013); with the
 * driver's `multiplex` on, where only the gate keeps checkouts waiting (P2, I3, I4); with a fractional
 * `maxConnections` (refused, or bounded by floor + 64: P1).
 *
 * Every step reports the situations it reached (the model's, `models/pool/situations.ts`, then the
 * surface probes', `surfaceSituations.ts`) for the coverage table; both properties need independent
 * connections, so the table is listed only on adapters that have them.
 *
 * @example
 * const suite = poolSuite() // the shipped implementation
 */
import type { CapabilityName } from "../../adapters/contract.ts"
import type { ExecutionTrace, PropertyDefinition } from "../../harness/Property.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { POOL_SITUATIONS } from "../../models/pool/index.ts"
import { poolRequirements } from "../../spec/pool.ts"
import type { PoolImplementation } from "../../subjects/pool/api.ts"
import { shippedPool } from "../../subjects/pool/index.ts"
import { ADMISSION_SHAPE, MODEL_SHAPE, poolScenario, type PoolScenarioShape } from "./arbitraries.ts"
import { executePool } from "./execute.ts"
import type { PoolScenario } from "./scenario.ts"
import { POOL_SURFACE_SITUATIONS } from "./surfaceSituations.ts"

/** What every pool property needs: the pool opens sessions of its own to the adapter's server. */
const POOL_NEEDS: ReadonlyArray<CapabilityName> = ["independentConnections"]

/** The pool's situations: the model's, then the surface probes'. */
const SITUATIONS: ReadonlyArray<string> = [...POOL_SITUATIONS, ...POOL_SURFACE_SITUATIONS]

/**
 * The surface probes, own-pool probes and commands of a failing scenario that ran, in that order (the
 * closing probe is the step after the last command).
 */
export const truncatePoolScenario = (scenario: PoolScenario, trace: ExecutionTrace): PoolScenario => {
  const surface = scenario.surface ?? []
  const ownPool = scenario.ownPool ?? []
  const ran = trace.steps.length
  if (ran < surface.length) return { ...scenario, surface: surface.slice(0, ran), ...(scenario.ownPool === undefined ? {} : { ownPool: [] }), commands: [] }
  if (ran < surface.length + ownPool.length) return { ...scenario, ownPool: ownPool.slice(0, ran - surface.length), commands: [] }
  const commandsRan = ran - surface.length - ownPool.length
  return commandsRan >= scenario.commands.length ? scenario : { ...scenario, commands: scenario.commands.slice(0, commandsRan) }
}

/** A pool property bound to `implementation`. */
const poolProperty = (implementation: PoolImplementation, id: string, title: string, shape: PoolScenarioShape): PropertyDefinition<any> => ({
  id,
  subject: "pool",
  title,
  requirements: poolRequirements.map((requirement) => requirement.id),
  needs: POOL_NEEDS,
  implementation: implementation.name,
  scenario: () => poolScenario(shape),
  execute: (scenario: PoolScenario, environment) => executePool(implementation)(scenario, environment),
  truncate: truncatePoolScenario
})

/** The pool suite bound to `implementation` (default: the shipped one). */
export const poolSuite = (implementation: PoolImplementation = shippedPool): SubjectSuite => ({
  subject: "pool",
  implementation: implementation.name,
  requirements: poolRequirements,
  // Listed only where the pool properties run: on an adapter where none applies the suite has no
  // coverage row (`situationCoverage`), so no situation needs its own capabilities here.
  situations: SITUATIONS,
  properties: [
    poolProperty(
      implementation,
      "pool/model",
      "bounded pool vs model on a real server: every checkout kind, releases and re-checkouts, interruptions, commit check, notify",
      MODEL_SHAPE
    ),
    poolProperty(
      implementation,
      "pool/admission",
      "bounded pool vs model on a real server: floods to the admission bound and past it, retried checkouts, virtual time",
      ADMISSION_SHAPE
    )
  ]
})
