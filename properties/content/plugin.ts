/**
 * The content subject as a plugin: its catalog, reference model, implementation guard, shipped store,
 * suite and hook points. Listed in `properties/plugins.ts`.
 *
 * @example
 * contentPlugin.isImplementation({ name: "mine", make }) // true
 */
import { hasNameAndFunctions, type SubjectPlugin } from "../../harness/SubjectPlugin.ts"
import { contentModel } from "../../models/content/index.ts"
import { contentRequirements } from "../../spec/content.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { CONTENT_HOOK_POINTS, shippedContent } from "../../subjects/content/index.ts"
import { contentSuite } from "./index.ts"

/** Whether `value` looks like a `ContentImplementation` (a non-empty name and a `make` function). */
export const isContentImplementation = (value: unknown): value is ContentImplementation => hasNameAndFunctions(value, ["make"])

/** The content subject. */
export const contentPlugin: SubjectPlugin<ContentImplementation> = {
  name: "content",
  requirements: contentRequirements,
  model: contentModel,
  implementationType: { name: "ContentImplementation", shape: "{ name, make }", needs: "a name and a make function" },
  isImplementation: isContentImplementation,
  shipped: shippedContent,
  suite: contentSuite,
  hookPoints: CONTENT_HOOK_POINTS
}
