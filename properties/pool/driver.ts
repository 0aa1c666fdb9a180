/**
 * Runs the checkouts of a pool scenario as fibers and reports what a caller sees of each: pending,
 * holding (its statement answered and it holds its connection until released), succeeded, failed (a
 * pool refusal or a server error) or interrupted. The operations are caller code, not the pool: they
 * tell the harness when they hold and wait for the harness to release them, so every pause is a
 * barrier and nothing sleeps.
 */
import { Clock, type Context, Deferred, Effect, Exit, Fiber, Queue, type Scope } from "effect"
import { labelled, makeScriptedHooks, withScriptedHooks } from "../../harness/HookPoints.ts"
import { endedAfterInterrupt, hasEnded, signalInterrupt } from "../../harness/Interruption.ts"
import type { HarnessError } from "../../harness/errors.ts"
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
  /** Interrupted by the harness, and still running when the system was quiet again (P4). */
  readonly ignoredInterrupt: boolean
}

/** The checkouts of one run. */
export interface PoolDriver {
  /** Starts a checkout (inside a holding transaction's context when `spec.inside` names one). */
  readonly start: (spec: OpSpec) => Effect.Effect<void>
  /** Lets a holding checkout end; `reborrow` is started by the same fiber right after. */
  readonly release: (id: string, reborrow: OpSpec | null) => Effect.Effect<void>
  /**
   * Interrupts a checkout's fiber and observes whether it ended once the system was quiet; one that
   * did not is marked (`ignoredInterrupt`) and left running, never awaited.
   */
  readonly interrupt: (id: string) => Effect.Effect<void, HarnessError>
  /** Signals the interruption of a checkout's fiber and returns at once (its reply may be held). */
  readonly signalInterrupt: (id: string) => Effect.Effect<void>
  /** After `signalInterrupt`: observes whether the checkout's fiber ended, as `interrupt` does. */
  readonly observeInterrupted: (id: string) => Effect.Effect<void, HarnessError>
  /** Releases `holder` and interrupts `waiter` right behind the hand-over, before it can run. */
  readonly releaseAndInterrupt: (holder: string, waiter: string) => Effect.Effect<void, HarnessError>
  /** What a caller sees of `id`. */
  readonly seen: (id: string) => SeenOp
  /**
   * Interrupts every fiber still running (newest first) and waits, bounded, for them to end; a fiber
   * that ignores it is left running (checkout fibers are detached, so nothing else waits for it).
   */
  readonly interruptAll: Effect.Effect<void, HarnessError>
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

/**
 * Builds the driver for `pool` of `implementation`. `quiet` waits until the system is quiet (the run's
 * wire tap). Checkout fibers are detached, so a checkout that ignores its interruption can never hold
 * the run: the driver's scope signals every one still running when it closes, and waits for none.
 */
export const makePoolDriver = (
  implementation: PoolImplementation,
  pool: BoundedPoolClient,
  handedOverHook: string,
  quiet: Effect.Effect<void, HarnessError>
): Effect.Effect<PoolDriver, never, Scope.Scope> =>
  Effect.gen(function*() {
    const hooks = yield* makeScriptedHooks
    const ops = new Map<string, OpRuntime>()
    const fiberOf = new Map<string, Fiber.Fiber<unknown, unknown>>()
    const ignored = new Set<string>()
    const running = () => [...new Set(fiberOf.values())].filter((fiber) => !hasEnded(fiber)).reverse()
    yield* Effect.addFinalizer(() => Effect.forEach(running(), signalInterrupt, { discard: true }))
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
        const fiber = yield* Effect.forkDetach(withScriptedHooks(hooks, labelled(spec.id, provided)))
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

    const fiberNamed = (id: string): Fiber.Fiber<unknown, unknown> => {
      const fiber = fiberOf.get(id)
      if (fiber === undefined) throw new Error(`no fiber runs checkout ${id}`)
      return fiber
    }
    const noteEnded = (id: string, ended: boolean) => Effect.sync(() => ended ? ignored.delete(id) : ignored.add(id))
    const observeInterrupted = (id: string) =>
      Effect.suspend(() => Effect.flatMap(endedAfterInterrupt(fiberNamed(id), quiet), (ended) => noteEnded(id, ended)))
    const signalOf = (id: string) => Effect.suspend(() => signalInterrupt(fiberNamed(id)))
    const interrupt = (id: string) => Effect.andThen(signalOf(id), observeInterrupted(id))

    // The waiter is interrupted at the hand-over: paused at the implementation's hook point right after
    // it was handed the slot when it offers one, else as soon as the holder's fiber has ended (it may
    // then have used the slot already; the model accepts both). A waiter that cannot end while the
    // harness holds it at the hook is released and observed again before it counts as ignoring.
    const releaseAndInterrupt = (holder: string, waiter: string) =>
      Effect.gen(function*() {
        const holderFiber = runtimeOf(holder).fiber!
        const waiterFiber = fiberNamed(waiter)
        yield* hooks.pauseAt(waiter, handedOverHook)
        yield* Deferred.succeed(runtimeOf(holder).release, undefined)
        yield* Effect.raceFirst(Effect.asVoid(hooks.awaitPaused(waiter)), Effect.asVoid(Fiber.await(holderFiber)))
        yield* signalInterrupt(waiterFiber)
        const endedWhileHeld = yield* endedAfterInterrupt(waiterFiber, quiet)
        yield* hooks.release(waiter)
        if (!endedWhileHeld) yield* observeInterrupted(waiter)
        yield* Fiber.await(holderFiber)
      })

    const seen = (id: string): SeenOp => {
      const runtime = ops.get(id)
      if (runtime === undefined) return { status: "pending", failure: null, received: [], attemptsAtMs: [], ignoredInterrupt: false }
      const common = { received: [...runtime.received], attemptsAtMs: [...runtime.attemptsAtMs], ignoredInterrupt: ignored.has(id) }
      const exit = runtime.exit
      if (exit === undefined) return { status: runtime.holding ? "holding" : "pending", failure: null, ...common }
      if (Exit.isSuccess(exit)) return { status: "succeeded", failure: null, ...common }
      if (Exit.hasInterrupts(exit) && !Exit.hasFails(exit) && !Exit.hasDies(exit)) return { status: "interrupted", failure: null, ...common }
      const error = Exit.findErrorOption(exit)
      const refusal = error._tag === "Some" && implementation.isPoolRefusal(error.value)
      const stale = error._tag === "Some" && error.value instanceof StaleReply
      return { status: "failed", failure: refusal ? "refusal" : stale ? "staleReply" : "error", ...common }
    }

    const interruptAll = Effect.gen(function*() {
      const fibers = running()
      for (const fiber of fibers) yield* signalInterrupt(fiber)
      for (const fiber of fibers) yield* endedAfterInterrupt(fiber, quiet)
    })

    return { start, release, interrupt, signalInterrupt: signalOf, observeInterrupted, releaseAndInterrupt, seen, interruptAll }
  })
