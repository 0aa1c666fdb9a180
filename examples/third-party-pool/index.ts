/**
 * Binding "their" bounded pool (`theirPool.ts`, an independent implementation of upstream's
 * `boundedPool`) to the suite:
 *
 *   npx durable-conformance run --implementation ./examples/third-party-pool/index.ts --adapter postgres --subject pool
 *
 * The module default-exports `{ subject: "pool", implementation, version }`, where `implementation` is
 * a `PoolImplementation` (subjects/pool/api.ts). The only adaptation: the pool's optional hand-over
 * instrumentation is wired to the harness's `pool.handedOver` hook point.
 */
import { hookPoint } from "../../harness/HookPoints.ts"
import { POOL_HANDED_OVER_HOOK, type PoolImplementation } from "../../subjects/pool/api.ts"
import { boundedPoolWith, isPoolRefusal, retryPoolRefusal } from "./theirPool.ts"

/** Their pool with the hand-over hook point wired in. */
export const theirPool: PoolImplementation = {
  name: "third-party-pool",
  boundedPool: boundedPoolWith({ handedOver: hookPoint(POOL_HANDED_OVER_HOOK) }),
  isPoolRefusal,
  retryPoolRefusal
}

export default { subject: "pool" as const, implementation: theirPool, version: "0.1.0" }
