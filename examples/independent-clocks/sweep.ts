/**
 * The registration sweep (C12): re-announce and re-arm every pending clock at its stored deadline,
 * future ones included (B1c); with a flow name, re-deliver a wake for every completion of that flow
 * the run has not consumed yet, under a wake identity stable across sweeps (B1d).
 */
import { Effect } from "effect"
import type { EngineContext } from "./context.ts"
import { addressKey, wakeSource } from "./keys.ts"
import { clockScheduled } from "./records.ts"
import type { Timers } from "./timers.ts"

/** Builds `sweepDue` over the engine's stores and timers. */
export const makeSweep = (ctx: EngineContext, timers: Timers) =>
  Effect.fn("DeferredPersistence.sweepDue")(function*(flowName?: string) {
    const pending = yield* ctx.clocks.pending(flowName).pipe(Effect.orDie)
    for (const row of pending) {
      yield* ctx.env.journal.emitDurableUnfenced(clockScheduled(ctx.env.journalSource, row)).pipe(Effect.orDie)
      yield* ctx.flushLossy
      yield* timers.arm(row)
    }
    if (flowName === undefined) return
    const completions = yield* ctx.deferreds.awaitingWake(flowName).pipe(Effect.orDie)
    for (const row of completions) {
      const wake = wakeSource(ctx.env.journalSource, addressKey(row.flowName, row.executionId, row.deferredName))
      yield* ctx.env.scheduleResume(row.flowName, row.executionId, "deferred", wake)
    }
  })
