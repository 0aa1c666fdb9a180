/**
 * What every engine operation shares: the environment handed over by the caller, the two stores,
 * the clock reading and the lossy flush.
 */
import { Clock, Effect } from "effect"
import type { ClocksEnvironment } from "../../subjects/clocks/api.ts"
import { type ClockStore, makeClockStore } from "./clockStore.ts"
import { type DeferredStore, makeDeferredStore } from "./deferredStore.ts"

/** The shared parts of one engine instance. */
export interface EngineContext {
  readonly env: ClocksEnvironment
  readonly deferreds: DeferredStore
  readonly clocks: ClockStore
  /** Runs `body` as one state transaction; the journal's writes join it (C4). */
  readonly transact: <A, E, R>(body: Effect.Effect<A, E, R>) => Effect.Effect<A, never, R>
  /** Pushes the lossy queue after a commit; a failure is logged and ignored (C3). */
  readonly flushLossy: Effect.Effect<void>
}

/** The current virtual time in whole epoch milliseconds (Effect's Clock only). */
export const nowMs: Effect.Effect<number> = Effect.map(Clock.currentTimeMillis, Math.floor)

/** Builds the shared context over the environment's client and journal. */
export const makeEngineContext = (env: ClocksEnvironment): EngineContext => ({
  env,
  deferreds: makeDeferredStore(env.sql),
  clocks: makeClockStore(env.sql),
  // A storage or journal failure inside the transaction rolls back rows and records together and
  // surfaces as a defect, as in upstream (`orDie`); the fire path retries it (C11).
  transact: (body) => env.sql.withTransaction(body).pipe(Effect.orDie),
  flushLossy: env.journal.flush.pipe(
    Effect.catchCause((cause) =>
      Effect.logWarning("independent-clocks: lossy journal flush failed after a durable commit; ignored", cause)
    )
  )
})
