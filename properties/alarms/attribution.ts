/**
 * Coverage credit of the situations the alarms model reached. Attribution of a disagreement to a
 * requirement is generic (`harness/Attribution.ts` over `alarmsAttributor` of the catalog).
 */
import { SITUATION_RULES, type Situation } from "../../models/alarms/index.ts"
import { alarmsAttributor } from "../../spec/alarms.ts"

/**
 * Requirements credited by the situations a step reached: those whose primary rule is one of the
 * situation's rules (so a situation credits what it really exercises, not every citing entry).
 */
export const requirementsOfSituations = (situations: Iterable<Situation>): ReadonlyArray<string> =>
  alarmsAttributor.requirementsWithPrimaryRules(Array.from(situations).flatMap((situation) => SITUATION_RULES[situation]))
