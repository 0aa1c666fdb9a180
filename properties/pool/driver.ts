/**
 * Runs the checkouts of a pool scenario as fibers and reports what a caller sees of each: pending,
 * holding (its statement answered and it holds its connection until released), succeeded, failed (a
 * pool refusal or a server error) or interrupted. The operations are caller code, not the pool: they
 * tell the harness when they hold and wait for the harness to release them, so every pause is a
 * barrier and nothing sleeps.
 */
import { Clock, type Context, Deferred, Effect, Exit, Fiber, Queue, type Scope } from "effect"
import { labelled, makeScriptedHooks, withScriptedHooks } from "../../harness/HookPoints.ts"
import type { OpSpec } from "../../models/pool/index.ts"
import type { BoundedPoolClient, PoolImplementation } from "../../subjects/pool/api.ts"

/** The tag every statement of checkout `id` carries, so the wire tap can attribute it. */
export const opTag = (id: string): string => `pool-op-${id}`

/** A statement of `id` that succeeds, or fails on the server (an invalid integer). */
export const taggedStatement = (id: string, failing: boolean): string =>
  failing ? `SELECT '${opTag(id)}'::int AS op` : `SELECT '${opTag(id)}' AS op`

/** The channel a checkout notifies on when its channel is too long: over 63 UTF-8 bytes but under 63 characters. */
export const channelOf = (id: string, long: boolean): string => long ? `${opTag(id)}-${"é".repeat(28)}` : opTag(id)

/** The channel every listener listens on and every notify (with a valid channel) sends to. */
export const LISTEN_CHANNEL = "pool-listen"

/** Bound on the notifications one listener keeps. */
export const MAX_RECEIVED = 256

/** Bound on the attempt times one retried checkout keeps (a scenario's steps end far earlier). */
export const MAX_ATTEMPTS = 256

/** A caller's statement was answered with another statement's reply (a connection reused half-read). */
export class StaleReply extends Error {
  readonly _tag = "StaleReply"
}

/** Fails with `StaleReply` unless `rows` are the answer to checkout `id`'s tagged statement. */
const answeredFor = (id: string, rows: ReadonlyArray<unknown>): Effect.Effect<void, StaleReply> => {
  const op = (rows[0] as { readonly op?: unknown } | undefined)?.op
  return op === opTag(id) ? Effect.void : Effect.fail(new StaleReply(`checkout ${id} got the reply ${JSON.stringify(rows)} to another statement`))
}

interface OpRuntime {
  readonly spec: OpSpec
  holding: boolean
  exit: Exit.Exit<unknown, unknown> | undefined
  fiber: Fiber.Fiber<unknown, unknown> | undefined
  readonly release: Deferred.Deferred<void>
  context: Context.Context<never> | undefined
  reborrow: OpSpec | undefined
  /** listen: `channel:payload` of every notification taken from its queue, in order. */
  readonly received: Array<string>
  /** With the retry helper: the virtual time each attempt began, read by the caller code on Effect's Clock. */
  readonly attemptsAtMs: Array<number>
}

/** What a caller sees of one checkout. */
export interface SeenOp {
  readonly status: "pending" | "holding" | "succeeded" | "failed" | "interrupted"
  readonly failure: "refusal" | "error" | "staleReply" | null
  /** listen: `channel:payload` of the notifications its queue delivered, in order. */
  readonly received: ReadonlyArray<string>
  /** With the retry helper: when each attempt began (virtual ms), in order. */
  readonly attemptsAtMs: ReadonlyArray<number>
}

/** The checkouts of one run. */
export interface PoolDriver {
  /** Starts a checkout (inside a holding transaction's context when `spec.inside` names one). */
  readonly start: (spec: OpSpec) => Effect.Effect<void>
  /** Lets a holding checkout end; `reborrow` is started by the same fiber right after. */
  readonly release: (id: string, reborrow: OpSpec | null) => Effect.Effect<void>
  /** Interrupts a checkout's fiber and waits for it to end. */
  readonly interrupt: (id: string) => Effect.Effect<void>
  /** Releases `holder` and interrupts `waiter` right behind the hand-over, before it can run. */
  readonly releaseAndInterrupt: (holder: string, waiter: string) => Effect.Effect<void>
  /** What a caller sees of `id`. */
  readonly seen: (id: string) => SeenOp
  /** Interrupts every fiber still running (newest first) and waits for them. */
  readonly interruptAll: Effect.Effect<void>
}

const holdUntilReleased = (runtime: OpRuntime) =>
  Effect.andThen(Effect.sync(() => { runtime.holding = true }), Deferred.await(runtime.release))

/** What checkout `runtime.spec` does, as caller code: take the checkout, send its statement, hold or end. */
const opBody = (implementation: PoolImplementation, pool: BoundedPoolClient, runtime: OpRuntime): Effect.Effect<unknown, unknown> => {
  const { spec } = runtime
  const id = spec.id
  const main: Effect.Effect<unknown, unknown> = (() => {
    switch (spec.kind) {
      case "acquire":
        return Effect.scoped(Effect.gen(function*() {
          const connection = yield* pool.reserve
          yield* answeredFor(id, yield* connection.execute(taggedStatement(id, false), [], undefined))
          yield* holdUntilReleased(runtime)
        }))
      case "transaction":
        return pool.withTransaction(Effect.gen(function*() {
          yield* answeredFor(id, yield* pool.unsafe(taggedStatement(id, false)))
          runtime.context = yield* Effect.context<never>()
          yield* holdUntilReleased(runtime)
          if (spec.failing) yield* Effect.ignore(pool.unsafe("SELECT 1/0 AS aborts"))
        }))
      case "listen":
        return Effect.scoped(Effect.gen(function*() {
          const queue = yield* pool.listen(LISTEN_CHANNEL)
          yield* Effect.forkScoped(Effect.ignore(Effect.gen(function*() {
            for (let count = 0; count < MAX_RECEIVED; count++) {
              const notification = yield* Queue.take(queue)
              runtime.received.push(`${notification.channel}:${notification.payload}`)
            }
          })))
          yield* holdUntilReleased(runtime)
        }))
      case "borrow":
        return Effect.flatMap(pool.unsafe(taggedStatement(id, spec.failing)), (rows) => answeredFor(id, rows))
      case "notify":
        return pool.notify(spec.longChannel ? channelOf(id, true) : LISTEN_CHANNEL, opTag(id))
    }
  })()
  if (!spec.retry) return main
  // Caller code, not the pool: each attempt the helper makes runs this effect again and notes when.
  const noted = Effect.andThen(Effect.map(Clock.currentTimeMillis, (atMs) => {
    if (runtime.attemptsAtMs.length >= MAX_ATTEMPTS) throw new Error(`checkout ${id} made more than ${MAX_ATTEMPTS} attempts`)
    runtime.attemptsAtMs.push(atMs)
  }), main)
  return implementation.retryPoolRefusal(noted)
}

/** Builds the driver for `pool` of `implementation`; fibers are children of the calling scope's fiber. */
export const makePoolDriver = (implementation: PoolImplementation, pool: BoundedPoolClient, handedOverHook: string): Effect.Effect<PoolDriver, never, Scope.Scope> =>
  Effect.gen(function*() {
    const hooks = yield* makeScriptedHooks
    const ops = new Map<string, OpRuntime>()
    const fiberOf = new Map<string, Fiber.Fiber<unknown, unknown>>()
    const runtimeOf = (id: string): OpRuntime => {
      const runtime = ops.get(id)
      if (runtime === undefined) throw new Error(`no checkout ${id}`)
      return runtime
    }

    const tracked = (runtime: OpRuntime): Effect.Effect<unknown, unknown> =>
      Effect.onExit(opBody(implementation, pool, runtime), (exit) => Effect.sync(() => { runtime.exit = exit }))

    const newRuntime = (spec: OpSpec): Effect.Effect<OpRuntime> =>
      Effect.map(Deferred.make<void>(), (release) => {
        const runtime: OpRuntime = { spec, holding: false, exit: undefined, fiber: undefined, release, context: undefined, reborrow: undefined, received: [], attemptsAtMs: [] }
        ops.set(spec.id, runtime)
        return runtime
      })

    const start = (spec: OpSpec) =>
      Effect.gen(function*() {
        const runtime = yield* newRuntime(spec)
        const effect = Effect.gen(function*() {
          yield* Effect.exit(tracked(runtime))
          const again = runtime.reborrow
          if (again !== undefined) yield* Effect.exit(tracked(ops.get(again.id)!))
        })
        const context = spec.inside === null ? undefined : runtimeOf(spec.inside).context
        const provided = context === undefined ? effect : Effect.provideContext(effect, context)
        const fiber = yield* Effect.forkChild(withScriptedHooks(hooks, labelled(spec.id, provided)))
        runtime.fiber = fiber
        fiberOf.set(spec.id, fiber)
      })

    const release = (id: string, reborrow: OpSpec | null) =>
      Effect.gen(function*() {
        const runtime = runtimeOf(id)
        if (reborrow !== null) {
          const again = yield* newRuntime(reborrow)
          runtime.reborrow = reborrow
          fiberOf.set(reborrow.id, runtime.fiber!)
          again.fiber = runtime.fiber
        }
        yield* Deferred.succeed(runtime.release, undefined)
      })

    const interrupt = (id: string) => Effect.suspend(() => Fiber.interrupt(fiberOf.get(id)!))

    // The waiter is interrupted at the hand-over: paused at the implementation's hook point right after
    // it was handed the slot when it offers one, else as soon as the holder's fiber has ended (it may
    // then have used the slot already; the model accepts both).
    const releaseAndInterrupt = (holder: string, waiter: string) =>
      Effect.gen(function*() {
        const holderFiber = runtimeOf(holder).fiber!
        const waiterFiber = fiberOf.get(waiter)!
        yield* hooks.pauseAt(waiter, handedOverHook)
        yield* Deferred.succeed(runtimeOf(holder).release, undefined)
        yield* Effect.raceFirst(Effect.asVoid(hooks.awaitPaused(waiter)), Effect.asVoid(Fiber.await(holderFiber)))
        yield* Fiber.interrupt(waiterFiber)
        yield* hooks.release(waiter)
        yield* Fiber.await(holderFiber)
      })

    const seen = (id: string): SeenOp => {
      const runtime = ops.get(id)
      if (runtime === undefined) return { status: "pending", failure: null, received: [], attemptsAtMs: [] }
      const received = [...runtime.received]
      const attemptsAtMs = [...runtime.attemptsAtMs]
      const exit = runtime.exit
      if (exit === undefined) return { status: runtime.holding ? "holding" : "pending", failure: null, received, attemptsAtMs }
      if (Exit.isSuccess(exit)) return { status: "succeeded", failure: null, received, attemptsAtMs }
      if (Exit.hasInterrupts(exit) && !Exit.hasFails(exit) && !Exit.hasDies(exit)) return { status: "interrupted", failure: null, received, attemptsAtMs }
      const error = Exit.findErrorOption(exit)
      const refusal = error._tag === "Some" && implementation.isPoolRefusal(error.value)
      const stale = error._tag === "Some" && error.value instanceof StaleReply
      return { status: "failed", failure: refusal ? "refusal" : stale ? "staleReply" : "error", received, attemptsAtMs }
    }

    const interruptAll = Effect.suspend(() => Fiber.interruptAll([...new Set(fiberOf.values())].reverse()))

    return { start, release, interrupt, releaseAndInterrupt, seen, interruptAll }
  })
