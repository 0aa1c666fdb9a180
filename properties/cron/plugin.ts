/**
 * The cron subject as a plugin: its catalog, reference model, implementation guard, shipped runtime,
 * suite and hook points. Listed in `properties/plugins.ts`.
 *
 * @example cronPlugin.suite(cronPlugin.shipped).properties.map((property) => property.id) // ["cron/model", "cron/faults"]
 */
import { hasNameAndFunctions, type SubjectPlugin } from "../../harness/SubjectPlugin.ts"
import { cronModel } from "../../models/cron/referenceModel.ts"
import { cronRequirements } from "../../spec/cron.ts"
import type { CronImplementation } from "../../subjects/cron/api.ts"
import { CRON_HOOK_POINTS, shippedCron } from "../../subjects/cron/index.ts"
import { cronSuite } from "./index.ts"

/** Whether `value` looks like a `CronImplementation` (a non-empty name and a `make` function). */
export const isCronImplementation = (value: unknown): value is CronImplementation => hasNameAndFunctions(value, ["make"])

/** The cron subject. */
export const cronPlugin: SubjectPlugin<CronImplementation> = {
  name: "cron",
  requirements: cronRequirements,
  model: cronModel,
  implementationType: { name: "CronImplementation", shape: "{ name, make }", needs: "a name and a make function" },
  isImplementation: isCronImplementation,
  shipped: shippedCron,
  suite: cronSuite,
  hookPoints: CRON_HOOK_POINTS
}
