/**
 * The pool subject as a plugin: its catalog, reference model, implementation guard, shipped pool and
 * suite. Listed in `properties/plugins.ts`.
 *
 * @example poolPlugin.isImplementation({ name: "akter", boundedPool, isPoolRefusal, retryPoolRefusal }) // true
 */
import { hasNameAndFunctions, type SubjectPlugin } from "../../harness/SubjectPlugin.ts"
import { poolModel } from "../../models/pool/index.ts"
import { poolRequirements } from "../../spec/pool.ts"
import { POOL_HANDED_OVER_HOOK, type PoolImplementation } from "../../subjects/pool/api.ts"
import { shippedPool } from "../../subjects/pool/index.ts"
import { poolSuite } from "./index.ts"

/** Whether `value` looks like a `PoolImplementation`. */
export const isPoolImplementation = (value: unknown): value is PoolImplementation =>
  hasNameAndFunctions(value, ["boundedPool", "isPoolRefusal", "retryPoolRefusal"])

/** The pool subject. */
export const poolPlugin: SubjectPlugin<PoolImplementation> = {
  name: "pool",
  requirements: poolRequirements,
  model: poolModel,
  implementationType: {
    name: "PoolImplementation",
    shape: "{ name, boundedPool, isPoolRefusal, retryPoolRefusal }",
    needs: "a name and the functions boundedPool, isPoolRefusal and retryPoolRefusal"
  },
  isImplementation: isPoolImplementation,
  shipped: shippedPool,
  suite: poolSuite,
  hookPoints: [POOL_HANDED_OVER_HOOK]
}
