/**
 * Effect-boundary evidence (C13): a durable `intended` record before an irreversible effect begins,
 * then `succeeded` (with its output) or `unknown`. Each (effect, status) pair has its own identity,
 * so re-emitting a status is a journal `Duplicate`.
 */
import { Cause, Effect, Exit } from "effect"
import type { EffectDescriptor, EffectStatus, Journal, JournalInput, JsonValue } from "../../subjects/clocks/api.ts"

/** The event type time travel decodes boundary evidence from. */
export const boundaryEventType = "flows.time-travel.effect-boundary"

/** Builds the boundary record of `descriptor` at `status` (`<sourceId>:effect:<id>:<status>`, seq 0). */
export const boundaryRecord = (
  descriptor: EffectDescriptor,
  status: EffectStatus,
  output?: JsonValue
): JournalInput => ({
  runId: descriptor.runId,
  sourceId: `${descriptor.sourceId}:effect:${descriptor.id}:${status}`,
  sourceSeq: 0,
  eventType: boundaryEventType,
  payload: {
    version: 1,
    effect: {
      id: descriptor.id,
      kind: descriptor.kind,
      tier: descriptor.tier,
      status,
      runId: descriptor.runId,
      lineageId: descriptor.lineageId,
      attempt: descriptor.attempt,
      durableBoundary: true,
      providerStream: false,
      ...(output === undefined ? {} : { output })
    }
  },
  meta: {
    lineageId: descriptor.lineageId,
    timeTravel: { effectId: descriptor.id, kind: descriptor.kind, tier: descriptor.tier, status }
  }
})

/**
 * Runs `effect` inside its boundary records. The `intended` record commits before the effect starts
 * (a journal failure there means the effect never begins); a success records `succeeded`, any other
 * ending but an interruption records `unknown`. The effect's own exit is returned unchanged.
 */
export const makeWithEffectBoundary = (journal: Journal) =>
<A extends JsonValue, E>(descriptor: EffectDescriptor, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.gen(function*() {
    const emit = (status: EffectStatus, output?: JsonValue) =>
      journal.emitDurableUnfenced(boundaryRecord(descriptor, status, output)).pipe(Effect.asVoid, Effect.orDie)
    yield* emit("intended")
    const exit = yield* Effect.exit(effect)
    if (Exit.isSuccess(exit)) {
      yield* emit("succeeded", exit.value)
    } else if (!Cause.hasInterruptsOnly(exit.cause)) {
      yield* emit("unknown")
    }
    return yield* exit
  })
