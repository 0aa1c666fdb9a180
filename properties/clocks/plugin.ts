/**
 * The clocks subject as a plugin: its catalog, reference model, implementation guard, shipped engine,
 * suite and hook points. Listed in `properties/plugins.ts`.
 *
 * @example
 * ```ts
 * clocksPlugin.isImplementation({ name: "mine", make }) // true
 * clocksPlugin.suite(clocksPlugin.shipped).properties.map((property) => property.id)
 * // ["clocks/model", "clocks/faults", "clocks/concurrent", "clocks/liveness"]
 * ```
 */
import { hasNameAndFunctions, type SubjectPlugin } from "../../harness/SubjectPlugin.ts"
import { clocksModel } from "../../models/clocks/referenceModel.ts"
import { clockRequirements } from "../../spec/clocks.ts"
import type { ClocksImplementation } from "../../subjects/clocks/api.ts"
import { CLOCK_HOOK_POINTS, shippedClocks } from "../../subjects/clocks/index.ts"
import { clocksSuite } from "./index.ts"

/** Whether `value` looks like a `ClocksImplementation` (a non-empty name and a `make` function). */
export const isClocksImplementation = (value: unknown): value is ClocksImplementation => hasNameAndFunctions(value, ["make"])

/** The clocks subject. */
export const clocksPlugin: SubjectPlugin<ClocksImplementation> = {
  name: "clocks",
  requirements: clockRequirements,
  model: clocksModel,
  implementationType: { name: "ClocksImplementation", shape: "{ name, make }", needs: "a name and a make function" },
  isImplementation: isClocksImplementation,
  shipped: shippedClocks,
  suite: clocksSuite,
  hookPoints: CLOCK_HOOK_POINTS
}
