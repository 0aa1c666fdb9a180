/**
 * Admission (P1): a bounded count of checkouts in flight (holding or waiting). Past the bound a
 * checkout is refused at once, before it reaches the gate or sends anything.
 */
import { Effect, type Scope } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { PoolRefused, poolRefusal } from "./refusal.ts"

/** The admission stage of one pool. */
export interface Admission {
  /** Takes an admission slot for the current scope, or fails at once with a pool refusal. */
  readonly take: Effect.Effect<void, SqlError, Scope.Scope>
  /** Slots held now (for assertions and tests). */
  readonly held: () => number
}

/**
 * Admission with `boundSlots` slots (maxConnections + POOL_WAITERS).
 *
 * @example const admission = makeAdmission(65) // a 1-connection pool
 */
export const makeAdmission = (boundSlots: number): Admission => {
  if (!Number.isSafeInteger(boundSlots) || boundSlots < 1) throw new RangeError(`admission bound ${boundSlots} must be a positive integer`)
  let held = 0
  const give = Effect.sync(() => {
    held -= 1
    if (held < 0) throw new Error("admission released more slots than it handed out")
  })
  const take = Effect.uninterruptible(Effect.suspend(() => {
    if (held >= boundSlots) return Effect.fail(poolRefusal(new PoolRefused({ admitted: held })))
    held += 1
    return Effect.addFinalizer(() => give)
  }))
  return { take, held: () => held }
}
