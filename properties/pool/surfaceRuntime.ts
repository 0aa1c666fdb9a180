/**
 * What every surface probe shares: the pool under test, the wire tap, a bounded way to run an effect
 * (forked, awaited until the system is quiet, never waited on forever) and how an outcome is described
 * from the caller's side. The pool's error type is `SqlError` on every entry point (the seed's
 * `bounded.d.ts` types `listen`, `notify` and the client so); a failure is described by its shape
 * (read structurally, so an implementation on another copy of effect/sql is read the same), never by
 * asking the pool.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import type { Check } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import type { PostgresWireTap } from "../../harness/PostgresWireTap.ts"
import { awaitCondition } from "../../harness/Quiescence.ts"
import { advanceByMs } from "../../harness/VirtualClock.ts"
import type { HarnessError } from "../../harness/errors.ts"
import type { BoundedPoolClient, PoolImplementation } from "../../subjects/pool/api.ts"

/** What a probe runs against. */
export interface SurfaceContext {
  readonly implementation: PoolImplementation
  readonly pool: BoundedPoolClient
  /** The config `pool` was built with (its sessions pass through `tap`), for probes that build a pool of their own. */
  readonly config: PgClient.PgPoolConfig
  readonly tap: PostgresWireTap
  readonly quiet: Effect.Effect<void, HarnessError>
  readonly maxConnections: number
  readonly transformNames: boolean
}

/** What one probe observed: its checks and the requirements whose situation it reached. */
export interface ProbeResult {
  readonly checks: ReadonlyArray<Check>
  readonly covered: ReadonlyArray<string>
  readonly implementation: Json
  readonly model: Json
}

/** Virtual time moved after a probe started, so a retry helper that wrongly retries shows its retries. */
export const RETRY_WINDOW_MS = 1_000

/**
 * Runs `effect` forked, waits until the system is quiet (moving virtual time by `advanceMs` first when
 * given), and returns its exit, or undefined when it is still running then (it is interrupted).
 */
export const runBounded = <A, E>(context: SurfaceContext, effect: Effect.Effect<A, E>, advanceMs = 0): Effect.Effect<Exit.Exit<A, E> | undefined, HarnessError> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect)
    yield* context.quiet
    if (advanceMs > 0) {
      yield* advanceByMs(advanceMs)
      yield* context.quiet
    }
    yield* awaitCondition(() => fiber.pollUnsafe() !== undefined, { maxTurns: 20 })
    const exit = fiber.pollUnsafe()
    if (exit === undefined) yield* Fiber.interrupt(fiber)
    return exit
  })

/** The shape of a failure: `SqlError` (with a reason), or what else it is. */
export const errorShape = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return `not a SqlError (a ${typeof error})`
  const tagged = error as { readonly _tag?: unknown; readonly reason?: unknown }
  if (tagged._tag !== "SqlError") return `not a SqlError (${typeof tagged._tag === "string" ? tagged._tag : "untagged"})`
  const reason = tagged.reason as { readonly _tag?: unknown } | undefined
  return typeof reason === "object" && reason !== null && typeof reason._tag === "string" ? "SqlError" : "SqlError without a reason"
}

/** Whether a `SqlError` says it may be retried (its reason's `isRetryable`), read without throwing. */
export const retryableOf = (error: unknown): boolean | "unreadable" => {
  try {
    const value = (error as { readonly isRetryable?: unknown }).isRetryable
    return typeof value === "boolean" ? value : "unreadable"
  } catch {
    return "unreadable"
  }
}

/** The typed failure of `exit`, if it failed with one. */
export const failureOf = <A, E>(exit: Exit.Exit<A, E>): Option.Option<E> => Exit.findErrorOption(exit)

/** How a caller sees an outcome: still waiting, succeeded, failed with a `SqlError` (or what else), a defect, interrupted. */
export const outcomeOf = <A, E>(exit: Exit.Exit<A, E> | undefined): string => {
  if (exit === undefined) return "still waiting"
  if (Exit.isSuccess(exit)) return "succeeded"
  const error = failureOf(exit)
  if (Option.isSome(error)) return `failed: ${errorShape(error.value)}`
  if (Exit.hasDies(exit)) return `defect: ${String(Cause.squash(exit.cause))}`.slice(0, 200)
  return "interrupted"
}
