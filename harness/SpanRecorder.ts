/**
 * Records the names of the spans an implementation opens during one call, through a tracer the
 * harness installs around the call (`Effect.withTracer`): the spans still reach the native tracer, so
 * the call runs as it would untraced. A requirement that an implementation keeps upstream's span
 * names (an operator's dashboards and alerts key on them) reads the names from here.
 */
import { Effect, Tracer } from "effect"

/** Most span names one recording keeps; later ones are counted, not kept. */
export const MAX_RECORDED_SPANS = 4_096

/** A recording of the span names opened under it, in the order they were opened. */
export interface SpanRecorder {
  /** `effect` under the recording tracer (its own fibers too, while they run under it). */
  readonly record: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The names recorded so far, whatever way the recorded effect ended (failure, interruption, crash). */
  readonly names: () => ReadonlyArray<string>
  /** Spans opened past `MAX_RECORDED_SPANS` (not kept). */
  readonly dropped: () => number
}

/**
 * A fresh recorder, one per call.
 *
 * @example const spans = makeSpanRecorder(); yield* spans.record(service.deferredDone(options)); spans.names() // ["DeferredPersistence.deferredDone", ...]
 */
export const makeSpanRecorder = (): SpanRecorder => {
  const names: Array<string> = []
  let dropped = 0
  const tracer = Tracer.make({
    span(options) {
      if (names.length < MAX_RECORDED_SPANS) names.push(options.name)
      else dropped += 1
      return Tracer.nativeTracer.span(options)
    }
  })
  return { record: (effect) => Effect.withTracer(effect, tracer), names: () => [...names], dropped: () => dropped }
}
