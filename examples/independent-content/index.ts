/**
 * An independent `content` store (a tenant content store with a garbage sweep), written from the
 * reference page (K1-K7), seed 001 and `subjects/content/api.ts` only, bound with
 * `run --implementation ./examples/independent-content/index.ts --subject content`.
 */
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { makeStore } from "./store.ts"

/** The implementation as the suite binds it. */
export const implementation: ContentImplementation = {
  name: "independent-content",
  make: (options) => makeStore(options)
}

export default { subject: "content", implementation, version: "0.1.0" } as const
