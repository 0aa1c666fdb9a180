/**
 * A requirement: one invariant with a stable ID, RFC-2119 MUST text, the reference rules it cites,
 * the suite version it was added in, and the adapter capabilities it needs.
 */
import type { CapabilityName } from "../adapters/contract.ts"

/** The durable primitives this suite certifies, plus the storage adapter contract itself. */
export type SubjectName = "adapter" | "alarms" | "content" | "cron" | "clocks" | "pool"

/** One requirement of the catalog. IDs are stable forever; text may be clarified, never weakened. */
export interface Requirement {
  /** Stable ID, e.g. `ALM-007`. */
  readonly id: string
  readonly subject: SubjectName
  /** A few words for tables, e.g. "budget resets only on strictly increasing progress". */
  readonly title: string
  /** The RFC-2119 text: what MUST (or MUST NOT) hold. */
  readonly text: string
  /** Rule numbers of `../shared/reference/<subject>.md` it covers, e.g. `["R11", "E1", "H5"]`. */
  readonly rules: ReadonlyArray<string>
  /** Suite version the requirement was added in. */
  readonly since: string
  /** Capabilities an adapter must have for the requirement to apply; empty when it always applies. */
  readonly needs: ReadonlyArray<CapabilityName>
}

/** Builds a catalog keyed by ID, refusing duplicate IDs (a programming error in the suite). */
export const catalog = (requirements: ReadonlyArray<Requirement>): ReadonlyMap<string, Requirement> => {
  const byId = new Map<string, Requirement>()
  for (const requirement of requirements) {
    if (byId.has(requirement.id)) throw new Error(`duplicate requirement id ${requirement.id}`)
    byId.set(requirement.id, requirement)
  }
  return byId
}
