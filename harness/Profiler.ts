/**
 * Wall-clock profiling of where an execution spends its time, for `npm run bench`: a property wraps
 * each call into the implementation in `timedImplementationCall`, so the bench can compare the same
 * commands model-checked (the whole execution) against the implementation alone (the time inside its
 * calls). A property may also name phases of its own work (`timedPhase`, `timedPhaseSync`: the whole
 * call, the observation, the model and its checks), so the bench can say where the rest goes. The
 * default profiler records nothing and costs one service lookup.
 */
import { Context, Effect } from "effect"

/** Receives the wall-clock milliseconds of each implementation call. */
export interface ProfilerService {
  readonly recordImplementationMs: (elapsedMs: number) => void
  /** Receives the wall-clock milliseconds of one named phase of the harness's own work; absent, phases are not timed. */
  readonly recordPhaseMs?: (phase: string, elapsedMs: number) => void
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

/** The phase of a whole call into the implementation, with the harness's boundary and records around it. */
export const CALL_PHASE = "call"
/** The phase of an observation after a call: what the harness reads back from storage and the API. */
export const OBSERVE_PHASE = "observe"
/** The phase of the model's step and the checks of every alternative judged. */
export const MODEL_PHASE = "model and checks"

/** Runs `effect`, a named phase of the harness's own work, and records its wall time when the current profiler takes phases. */
export const timedPhase = <A, E, R>(phase: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(Profiler), (profiler) => {
    const record = profiler.recordPhaseMs
    if (record === undefined) return effect
    return Effect.suspend(() => {
      const startedMs = performance.now()
      return Effect.ensuring(effect, Effect.sync(() => record(phase, performance.now() - startedMs)))
    })
  })

/** Runs `work`, a named synchronous phase, and records its wall time with `profiler` when it takes phases. */
export const timedPhaseSync = <A>(profiler: ProfilerService, phase: string, work: () => A): A => {
  const record = profiler.recordPhaseMs
  if (record === undefined) return work()
  const startedMs = performance.now()
  try {
    return work()
  } finally {
    record(phase, performance.now() - startedMs)
  }
}

/** A profiler that sums what it receives: the implementation's calls, and each phase by name. */
export const makeSummingProfiler = (): ProfilerService & {
  readonly totalMs: () => number
  readonly calls: () => number
  readonly phaseMs: () => Readonly<Record<string, number>>
} => {
  let totalMs = 0
  let calls = 0
  const phases = new Map<string, number>()
  return {
    recordImplementationMs: (elapsedMs) => {
      totalMs += elapsedMs
      calls++
    },
    recordPhaseMs: (phase, elapsedMs) => {
      phases.set(phase, (phases.get(phase) ?? 0) + elapsedMs)
    },
    totalMs: () => totalMs,
    calls: () => calls,
    phaseMs: () => Object.fromEntries(phases)
  }
}
