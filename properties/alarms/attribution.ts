/**
 * From a disagreement to a witness: which requirement it violates (the most specific one for the
 * prediction's rules) and one plain sentence in the Jepsen/Elle style. Also the coverage credit of
 * the situations the model reached.
 */
import type { Json } from "../../harness/Property.ts"
import { SITUATION_RULES, type Situation } from "../../models/alarms/index.ts"
import { alarmRequirements, requirementsForRules } from "../../spec/alarms.ts"

/** Used when a prediction carries no rule (should not happen): the platform alarm / state requirement. */
export const FALLBACK_REQUIREMENT = "ALM-042"

/**
 * The most specific requirement for `rules`: the one citing the most of them; ties keep the order of
 * `requirementsForRules` (primary rule first, fewer rules first).
 *
 * @example mostSpecificRequirement(["R22", "R23", "E6", "H1"]) // "ALM-043"
 */
export const mostSpecificRequirement = (rules: ReadonlyArray<string>): string => {
  const candidates = requirementsForRules(rules)
  let best: string | undefined
  let bestOverlap = 0
  for (const id of candidates) {
    const requirement = alarmRequirements.find((entry) => entry.id === id)
    const overlap = requirement === undefined ? 0 : requirement.rules.filter((rule) => rules.includes(rule)).length
    if (overlap > bestOverlap) {
      best = id
      bestOverlap = overlap
    }
  }
  return best ?? FALLBACK_REQUIREMENT
}

/** JSON with object keys sorted, so equal values compare equal as text. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner) ?? "null"

/** Short text of a JSON value for a sentence (bounded length). */
export const brief = (value: Json | undefined): string => {
  const text = canonical(value ?? null)
  return text.length > 160 ? `${text.slice(0, 157)}...` : text
}

/**
 * Requirements credited by the situations a step reached: those whose primary rule is one of the
 * situation's rules (so a situation credits what it really exercises, not every citing entry).
 */
export const requirementsOfSituations = (situations: Iterable<Situation>): ReadonlyArray<string> =>
  requirementsWithPrimaryRules(Array.from(situations).flatMap((situation) => SITUATION_RULES[situation]))

/** Requirements whose primary (first) rule is in `rules`. */
export const requirementsWithPrimaryRules = (rules: ReadonlyArray<string>): ReadonlyArray<string> =>
  alarmRequirements.filter((requirement) => requirement.rules[0] !== undefined && rules.includes(requirement.rules[0])).map((requirement) => requirement.id)
