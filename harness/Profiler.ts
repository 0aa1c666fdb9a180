/**
 * Wall-clock profiling of where an execution spends its time, for `npm run bench`: a property wraps
 * each call into the implementation in `timedImplementationCall`, so the bench can compare the same
 * commands model-checked (the whole execution) against the implementation alone (the time inside its
 * calls). The default profiler records nothing and costs one service lookup.
 */
import { Context, Effect } from "effect"

/** Receives the wall-clock milliseconds of each implementation call. */
export interface ProfilerService {
  readonly recordImplementationMs: (elapsedMs: number) => void
}

/** The profiler; the default ignores every record. */
export const Profiler = Context.Reference<ProfilerService>("durable-conformance/harness/Profiler", {
  defaultValue: () => ({ recordImplementationMs: () => {} })
})

/** Runs `effect` (a call into the implementation) and records its wall time with the current profiler. */
export const timedImplementationCall = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(Profiler), (profiler) =>
    Effect.suspend(() => {
      const startedMs = performance.now()
      return Effect.ensuring(effect, Effect.sync(() => profiler.recordImplementationMs(performance.now() - startedMs)))
    }))

/** A profiler that sums what it receives. */
export const makeSummingProfiler = (): ProfilerService & { readonly totalMs: () => number; readonly calls: () => number } => {
  let totalMs = 0
  let calls = 0
  return {
    recordImplementationMs: (elapsedMs) => {
      totalMs += elapsedMs
      calls++
    },
    totalMs: () => totalMs,
    calls: () => calls
  }
}
