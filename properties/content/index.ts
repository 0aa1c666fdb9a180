/**
 * The content suite: the requirement catalog and the model-based properties that drive a content
 * implementation and the reference model side by side.
 *
 * - `content/model`: random operation sequences over three tenants sharing payloads, uploads of bytes
 *   and streams (too large, failing bodies), grants (also forged ones), attaches with valid, expired,
 *   forged, foreign, mis-sized and malformed grants, detaches, reads, streams (also interrupted),
 *   hourly and forced sweeps, and virtual time jumps of minutes, hours and days, also to just before
 *   and after a grant's expiry and a content's deletion horizon.
 * - `content/faults`: the same with storage-boundary faults in the transactions of uploads, grants,
 *   attaches, detaches and sweeps (a crash inside, a crash after commit, a lost reply) and restarts.
 * - `content/races`: a sweep racing an upload, a grant, a grant-and-attach or a detach of a sweep
 *   candidate: through hook points on every adapter, truly concurrently on separate connections where
 *   the adapter has them (with `pg_blocking_pids` showing the row lock ordering them).
 *
 * @example
 * const suite = contentSuite() // the shipped implementation
 */
import type { ExecutionTrace, PropertyDefinition } from "../../harness/Property.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { CONTENT_SITUATIONS } from "../../models/content/index.ts"
import { contentRequirements } from "../../spec/content.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { shippedContent } from "../../subjects/content/index.ts"
import { type ContentShape, contentScenario } from "./arbitraries.ts"
import { executeContent } from "./execute.ts"
import { RACE_INTERLEAVING } from "./race.ts"
import type { ContentScenario } from "./scenario.ts"

const ALL: ReadonlyArray<string> = contentRequirements.map((requirement) => requirement.id)
/** Requirements only a race reaches. */
const RACE_ONLY: ReadonlyArray<string> = ["CNT-010", "CNT-011", "CNT-012"]

/** Shapes of the three properties. */
export const CONTENT_SHAPES = {
  model: { faults: false, races: false, maxCommands: 12 },
  faults: { faults: true, races: false, maxCommands: 10 },
  races: { faults: false, races: true, maxCommands: 12 }
} as const satisfies Record<string, ContentShape>

/** The commands of a failing scenario that ran (one step per command). */
export const truncateContentScenario = (scenario: ContentScenario, trace: ExecutionTrace): ContentScenario =>
  trace.steps.length >= scenario.commands.length ? scenario : { ...scenario, commands: scenario.commands.slice(0, trace.steps.length) }

const property = (implementation: ContentImplementation, id: string, title: string, shape: ContentShape, requirements: ReadonlyArray<string>, connections: number): PropertyDefinition<any> => ({
  id,
  subject: "content",
  title,
  requirements,
  needs: [],
  implementation: implementation.name,
  connections,
  scenario: (capabilities) => contentScenario(shape, capabilities),
  execute: (scenario: ContentScenario, environment) => executeContent(implementation)(scenario, environment),
  truncate: truncateContentScenario
})

/** The content suite bound to `implementation` (default: the shipped one). */
export const contentSuite = (implementation: ContentImplementation = shippedContent): SubjectSuite => ({
  subject: "content",
  implementation: implementation.name,
  requirements: contentRequirements,
  situations: CONTENT_SITUATIONS,
  properties: [
    property(implementation, "content/model", "store vs model: uploads, grants, attach/detach, reads, streams, sweeps, clock jumps, misused grants", CONTENT_SHAPES.model, ALL.filter((id) => !RACE_ONLY.includes(id)), 1),
    property(implementation, "content/faults", "store vs model under crashes inside and after commit and lost replies in uploads, grants, attaches and sweeps", CONTENT_SHAPES.faults, ALL.filter((id) => !RACE_ONLY.includes(id)), 1),
    { ...property(implementation, "content/races", "a sweep racing an upload, grant, grant-and-attach or detach: hook points everywhere, separate connections and row locks where available", CONTENT_SHAPES.races, ALL, 3), interleaving: RACE_INTERLEAVING }
  ]
})
