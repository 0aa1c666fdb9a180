/**
 * The `fractionalBound` probe: P1 for a `maxConnections` that is not an integer (the config's type is
 * `number`; nothing stops a caller passing `maxConnections + 0.5`). The reference allows a pool to
 * refuse such a config (fail to build), but a pool that accepts it must still hold at most
 * `maxConnections + 64` checkouts: the checkout after the `floor(maxConnections) + 64`th is refused.
 *
 * On a pool of its own (the scenario's config with `maxConnections` = the scenario's + 0.5, through the
 * run's wire tap, closed when the probe ends): if it builds, `floor + 64` reservations are held, then one
 * more checkout must be refused at once.
 */
import { Effect, Exit, Fiber, Option } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { HarnessError } from "../../harness/errors.ts"
import { POOL_WAITERS } from "../../subjects/pool/api.ts"
import { failureOf, outcomeOf, type ProbeResult, runBounded, type SurfaceContext } from "./surfaceRuntime.ts"

/** What the caller sees when the pool refuses its config. */
const NOT_BUILT = "not built (config refused)"

/** The `fractionalBound` probe. */
export const fractionalBoundProbe = (context: SurfaceContext): Effect.Effect<ProbeResult, HarnessError> =>
  Effect.scoped(Effect.gen(function*() {
    const maxConnections = context.maxConnections + 0.5
    const admitted = Math.floor(maxConnections) + POOL_WAITERS
    const built = yield* Effect.exit(context.implementation.boundedPool({ ...context.config, maxConnections }).pipe(Effect.provide(Reactivity.layer)))
    let actual: string = NOT_BUILT
    if (Exit.isSuccess(built)) {
      const pool = built.value
      const fibers = yield* Effect.forEach(Array.from({ length: admitted }), () => Effect.forkChild(Effect.scoped(Effect.andThen(pool.reserve, Effect.never))))
      yield* context.quiet
      const exit = yield* runBounded(context, Effect.scoped(pool.reserve))
      yield* Fiber.interruptAll([...fibers].reverse())
      yield* context.quiet
      const error = exit === undefined ? undefined : Option.getOrUndefined(failureOf(exit))
      actual = error !== undefined && context.implementation.isPoolRefusal(error) ? "refused past the bound" : outcomeOf(exit)
    }
    const expected = actual === NOT_BUILT ? NOT_BUILT : "refused past the bound"
    return {
      checks: [{
        observable: `a checkout after ${admitted} admitted ones, pool built with maxConnections ${maxConnections}`,
        expected,
        actual,
        rules: ["P1"],
        why: "at most maxConnections + 64 checkouts are held: a pool that accepts a fractional maxConnections refuses the checkout after floor(maxConnections) + 64 (a pool may refuse the config instead)"
      }],
      covered: ["POL-001"],
      implementation: actual,
      model: expected
    }
  }))
