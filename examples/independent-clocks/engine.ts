/**
 * The clocks engine (upstream `DeferredPersistence.make`): deferred completion and consumption,
 * absolute clocks and the registration sweep, composed from the stores, the completion path and the
 * timers. Span names follow upstream (`DeferredPersistence.<operation>`).
 */
import { Effect, Option, type Scope } from "effect"
import {
  type ClocksEnvironment,
  type ClocksService,
  type DeferredDoneOptions,
  type DurableDeferred,
  FlowInstance
} from "../../subjects/clocks/api.ts"
import { persistCompletion } from "./completion.ts"
import { type EngineContext, makeEngineContext, nowMs } from "./context.ts"
import { makeWithEffectBoundary } from "./effectBoundary.ts"
import { clockScheduled, deferredConsumed } from "./records.ts"
import { storedExit } from "./rows.ts"
import { ensureSchema } from "./schema.ts"
import { makeSweep } from "./sweep.ts"
import { makeTimers, type Timers } from "./timers.ts"

/**
 * Reads a deferred of the current flow instance (C7): its first read records consumption with a
 * deferred-consumed record in one transaction; every read returns the stored exit unchanged.
 */
const makeDeferredResult = (ctx: EngineContext) =>
  Effect.fn("DeferredPersistence.deferredResult")(function*(deferred: DurableDeferred) {
    const instance = yield* FlowInstance
    const address = { flowName: instance.flow._tag, executionId: instance.executionId, deferredName: deferred.name }
    const stored = yield* ctx.deferreds.find(address).pipe(Effect.orDie)
    if (Option.isNone(stored)) return Option.none()
    if (stored.value.consumedAtMs === null) {
      const consumedAtMs = yield* nowMs
      yield* ctx.transact(Effect.gen(function*() {
        const first = yield* ctx.deferreds.consume(address, consumedAtMs)
        if (first) {
          yield* ctx.env.journal.emitDurableUnfenced(deferredConsumed(ctx.env.journalSource, stored.value, consumedAtMs))
        }
      }))
    }
    return Option.some(storedExit(stored.value))
  })

/**
 * Schedules a clock at an absolute deadline computed once (C8): the row (or the stored one) and its
 * clock-scheduled record commit together; then flush and arm.
 */
const makeScheduleClock = (ctx: EngineContext, timers: Timers) =>
  Effect.fn("DeferredPersistence.scheduleClock")(function*(
    flow: Parameters<ClocksService["scheduleClock"]>[0],
    options: Parameters<ClocksService["scheduleClock"]>[1]
  ) {
    const scheduledAtMs = yield* nowMs
    const stored = yield* ctx.transact(Effect.gen(function*() {
      const row = yield* ctx.clocks.schedule({
        flowName: flow._tag,
        executionId: options.executionId,
        clockName: options.clock.name,
        deferredName: options.clock.deferred.name,
        dueAtMs: scheduledAtMs + options.clock.durationMs,
        completedAtMs: null,
        owner: ctx.env.owner
      })
      yield* ctx.env.journal.emitDurableUnfenced(clockScheduled(ctx.env.journalSource, row))
      return row
    }))
    yield* ctx.flushLossy
    yield* timers.arm(stored)
  })

/** Builds the service; timers live in the scope `make` runs in. */
export const makeClocksService = (
  env: ClocksEnvironment
): Effect.Effect<ClocksService, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    yield* ensureSchema(env.sql)
    const ctx = makeEngineContext(env)
    const timers = yield* makeTimers(ctx)
    const complete = (options: DeferredDoneOptions) => persistCompletion(ctx, options, { reason: "deferred" })
    return {
      deferredResult: makeDeferredResult(ctx),
      deferredDone: Effect.fn("DeferredPersistence.deferredDone")(function*(options: DeferredDoneOptions) {
        yield* complete(options)
      }),
      deferredDoneIfWaiting: Effect.fn("DeferredPersistence.deferredDoneIfWaiting")(function*(options) {
        const { reason, token, ...completion } = options
        return yield* persistCompletion(ctx, completion, { reason: "deferred", expectedWaiting: { reason, token } })
      }),
      scheduleClock: makeScheduleClock(ctx, timers),
      sweepDue: makeSweep(ctx, timers),
      withEffectBoundary: makeWithEffectBoundary(env.journal)
    } satisfies ClocksService
  })
