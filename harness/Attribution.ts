/**
 * From the rules a disagreement breaks to the requirement it violates, for any subject's catalog.
 *
 * Every prediction a model makes carries the reference-page rules that decide it. When the
 * implementation disagrees, the violated requirement is the one of the catalog citing the most of
 * those rules (the most specific); when several cite equally many, the first in rule order is named
 * and the others are listed too, so an ambiguous witness names every candidate instead of guessing.
 */
import type { Requirement } from "../spec/Requirement.ts"

/** The requirement a disagreement violates, and the others it may equally violate. */
export interface Attribution {
  readonly requirementId: string
  /** Requirements citing as many of the rules (ambiguous attribution); empty when unambiguous. */
  readonly alsoRequirementIds: ReadonlyArray<string>
}

/** Attribution over one subject's catalog. */
export interface Attributor {
  /** Requirement IDs citing any of `rules`, most specific first (primary rule first, fewer rules first). */
  readonly requirementsForRules: (rules: ReadonlyArray<string>) => ReadonlyArray<string>
  /** Requirements whose primary (first) rule is in `rules` (coverage credit of a situation). */
  readonly requirementsWithPrimaryRules: (rules: ReadonlyArray<string>) => ReadonlyArray<string>
  /** The violated requirement for `rules` (the fallback when no requirement cites any of them). */
  readonly attribute: (rules: ReadonlyArray<string>) => Attribution
  /**
   * The attributor over only the requirements `ids` (a property's own list): a property never names a
   * requirement it does not check, however many of a disagreement's rules that requirement cites.
   * The fallback stays when it is among `ids`, else the first of them.
   */
  readonly within: (ids: ReadonlyArray<string>) => Attributor
}

/** Most narrowed attributors one attributor keeps (far above any subject's property count). */
const MAX_NARROWED_ATTRIBUTORS = 64

/**
 * Builds the attributor of a catalog. `fallbackId` is named when no requirement cites a rule (a model
 * bug: every prediction should carry rules), so a disagreement is never dropped.
 *
 * @example makeAttributor(alarmRequirements, "ALM-042").attribute(["R22", "R23", "E6", "H1"]).requirementId // "ALM-043"
 */
export const makeAttributor = (requirements: ReadonlyArray<Requirement>, fallbackId: string): Attributor => {
  if (!requirements.some((requirement) => requirement.id === fallbackId)) {
    throw new Error(`fallback requirement ${fallbackId} is not in the catalog`)
  }
  const primaryRule = (requirement: Requirement): string | undefined => requirement.rules[0]
  const byId = new Map(requirements.map((requirement) => [requirement.id, requirement]))

  const requirementsForRules = (rules: ReadonlyArray<string>): ReadonlyArray<string> => {
    const ids: Array<string> = []
    for (const rule of rules) {
      const citing = requirements
        .filter((requirement) => requirement.rules.includes(rule))
        .sort((a, b) =>
          Number(primaryRule(b) === rule) - Number(primaryRule(a) === rule) || a.rules.length - b.rules.length ||
          a.id.localeCompare(b.id)
        )
      for (const requirement of citing) if (!ids.includes(requirement.id)) ids.push(requirement.id)
    }
    return ids
  }

  const attribute = (rules: ReadonlyArray<string>): Attribution => {
    const overlapOf = (id: string) => byId.get(id)?.rules.filter((rule) => rules.includes(rule)).length ?? 0
    const candidates = requirementsForRules(rules)
    const best = Math.max(0, ...candidates.map(overlapOf))
    const top = best === 0 ? [] : candidates.filter((id) => overlapOf(id) === best)
    if (top.length === 0) return { requirementId: fallbackId, alsoRequirementIds: [] }
    return { requirementId: top[0]!, alsoRequirementIds: top.slice(1) }
  }

  const requirementsWithPrimaryRules = (rules: ReadonlyArray<string>): ReadonlyArray<string> =>
    requirements.filter((requirement) => {
      const primary = primaryRule(requirement)
      return primary !== undefined && rules.includes(primary)
    }).map((requirement) => requirement.id)

  // One narrowed attributor per requirement list: a property asks for its own on every scenario.
  // Bounded by the catalog's properties (a handful of lists per subject).
  const narrowed = new Map<string, Attributor>()
  const within = (ids: ReadonlyArray<string>): Attributor => {
    const key = ids.join("\u0000")
    const known = narrowed.get(key)
    if (known !== undefined) return known
    const kept = requirements.filter((requirement) => ids.includes(requirement.id))
    if (kept.length === 0) throw new Error(`no requirement of the catalog among ${ids.join(", ")}`)
    const attributor = makeAttributor(kept, ids.includes(fallbackId) ? fallbackId : kept[0]!.id)
    if (narrowed.size >= MAX_NARROWED_ATTRIBUTORS) narrowed.clear()
    narrowed.set(key, attributor)
    return attributor
  }

  return { requirementsForRules, requirementsWithPrimaryRules, attribute, within }
}
