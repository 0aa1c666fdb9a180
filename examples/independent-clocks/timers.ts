/**
 * Clock arming and firing (C9, C10, C11): one live timer per clock key, sleeping on Effect's Clock
 * until the stored deadline; the fire is one transaction and is retried with backoff until it commits.
 */
import { Duration, Effect, FiberMap, Option, Schedule } from "effect"
import type { EncodedExit } from "../../subjects/clocks/api.ts"
import { persistCompletion } from "./completion.ts"
import { type EngineContext, nowMs } from "./context.ts"
import { addressKey } from "./keys.ts"
import { clockCompleted } from "./records.ts"
import type { ClockRow } from "./rows.ts"

/** Upstream's default redispatch policy: exponential from 100 ms, capped at 30 s, forever (C11). */
export const defaultFireRetryPolicy: Schedule.Schedule<unknown, unknown> = Schedule.min([
  Schedule.exponential("100 millis"),
  Schedule.spaced("30 seconds")
])

/** The encoded void exit a fired clock completes its deferred with (JSON has no `undefined`). */
const voidExit: EncodedExit = { _tag: "Success", value: null }

/**
 * Fires one clock (C10): completes its deferred first-writer-wins with a void exit and the clock's
 * metadata, records it, CASes the clock's completion and records clock-completed only when the CAS
 * won, all in one transaction; then flushes and resumes with reason "clock".
 */
export const fireClock = (ctx: EngineContext, row: ClockRow): Effect.Effect<void> =>
  Effect.gen(function*() {
    const completedAtMs = yield* nowMs
    const completeClock = Effect.gen(function*() {
      const won = yield* ctx.clocks.completeIfPending(row, completedAtMs)
      if (won) yield* ctx.env.journal.emitDurableUnfenced(clockCompleted(ctx.env.journalSource, row, completedAtMs))
    }).pipe(Effect.orDie)
    yield* persistCompletion(ctx, {
      flowName: row.flowName,
      executionId: row.executionId,
      deferredName: row.deferredName,
      exit: voidExit,
      metadata: { clockName: row.clockName, dueAtMs: row.dueAtMs, completedAtMs }
    }, { reason: "clock", completedAtMs, alongside: () => completeClock })
  })

/** The timers of one engine instance; closing their scope (a process dying) stops them all. */
export interface Timers {
  /** Arms `row` unless it fired and its completion still stands (C9). */
  readonly arm: (row: ClockRow) => Effect.Effect<void>
}

/** Builds the timer registry in the current scope. */
export const makeTimers = (ctx: EngineContext) =>
  Effect.gen(function*() {
    const live = yield* FiberMap.make<string>()
    const retryPolicy = ctx.env.fireRetryPolicy ?? defaultFireRetryPolicy

    const startTimer = (row: ClockRow) =>
      Effect.gen(function*() {
        const delayMs = Math.max(0, row.dueAtMs - (yield* nowMs))
        const fireUntilAcknowledged = fireClock(ctx, row).pipe(
          Effect.sandbox,
          Effect.retry(retryPolicy),
          Effect.orDie,
          Effect.delay(Duration.millis(delayMs))
        )
        const key = addressKey(row.flowName, row.executionId, row.clockName)
        yield* FiberMap.run(live, key, fireUntilAcknowledged, { onlyIfMissing: true })
      })

    const arm = (row: ClockRow): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (row.completedAtMs !== null) {
          const completion = yield* ctx.deferreds.find(row).pipe(Effect.orDie)
          if (Option.isSome(completion)) return
        }
        yield* startTimer(row)
      })

    return { arm } satisfies Timers
  })
