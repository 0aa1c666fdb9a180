/**
 * Deferred completion (C5, C6, C10a-b): first-writer-wins row and its deferred-completed record in one
 * state transaction, then the lossy flush and a claim-gated resume on every admitted call.
 */
import { Effect, Option } from "effect"
import type { DeferredDoneIfWaitingOutcome, DeferredDoneOptions, ResumeReason, Waiting } from "../../subjects/clocks/api.ts"
import { type EngineContext, nowMs } from "./context.ts"
import { deferredCompleted } from "./records.ts"
import type { DeferredRow } from "./rows.ts"
import { jsonText } from "./rows.ts"

/** Extra options of one completion: the resume reason, a waiting guard, and writes to join its transaction. */
export interface CompletionOptions {
  readonly reason: ResumeReason
  /** The completion time when the caller already read it (a fire stamps row and metadata alike). */
  readonly completedAtMs?: number
  /** When set, complete only if the run waits with exactly this reason and token (C6). */
  readonly expectedWaiting?: Waiting
  /** Runs inside the completion's transaction after its record (the fire's clock CAS, C10c-d). */
  readonly alongside?: (row: DeferredRow) => Effect.Effect<void>
}

const isWaitingFor = (waiting: Option.Option<Waiting>, expected: Waiting): boolean =>
  Option.isSome(waiting) && waiting.value.reason === expected.reason && waiting.value.token === expected.token

/** Completes a deferred and resumes its run; answers `Created`, `Existing` or `NotWaiting`. */
export const persistCompletion = (
  ctx: EngineContext,
  options: DeferredDoneOptions,
  extra: CompletionOptions
): Effect.Effect<DeferredDoneIfWaitingOutcome> =>
  Effect.gen(function*() {
    const completedAtMs = extra.completedAtMs ?? (yield* nowMs)
    const outcome = yield* ctx.transact(Effect.gen(function*() {
      if (extra.expectedWaiting !== undefined) {
        const waiting = yield* ctx.env.runs.waiting(options.executionId)
        if (!isWaitingFor(waiting, extra.expectedWaiting)) return "NotWaiting" as const
      }
      const completion = yield* ctx.deferreds.complete({
        flowName: options.flowName,
        executionId: options.executionId,
        deferredName: options.deferredName,
        exitJson: jsonText(options.exit),
        metadataJson: options.metadata === undefined ? null : jsonText(options.metadata),
        completedAtMs
      })
      yield* ctx.env.journal.emitDurableUnfenced(deferredCompleted(ctx.env.journalSource, completion.row))
      if (extra.alongside !== undefined) yield* extra.alongside(completion.row)
      return completion.outcome
    }))
    if (outcome === "NotWaiting") return outcome
    yield* ctx.flushLossy
    yield* ctx.env.scheduleResume(options.flowName, options.executionId, extra.reason)
    return outcome
  })
