/**
 * Where a bench's checked wall time went, by the phases the properties name (`timedPhase` and
 * `timedPhaseSync` of `harness/Profiler.ts`): the implementation, the call's wrapping (the storage
 * boundary's fiber, spans, forked writes), the observation, the model and its checks, and the rest
 * (scenario setup, clock steps, step records, the liveness phase). A subject whose session names no
 * phase shows all of it under the implementation and "other".
 */
import { CALL_PHASE, MODEL_PHASE, OBSERVE_PHASE } from "../harness/Profiler.ts"

/** Where the checked wall time went, in percent; they sum to 100 (rounding aside). */
export interface PhasePercents {
  readonly implementation: number
  /** The call's phase less the implementation's own time: the boundary, spans, forked writes. */
  readonly callWrapping: number
  readonly observation: number
  readonly modelAndChecks: number
  /** Everything else: scenario setup, clock steps, step records, the liveness phase. */
  readonly other: number
}

const percentOf = (partMs: number, wholeMs: number): number => (wholeMs <= 0 ? 0 : Math.round((1000 * partMs) / wholeMs) / 10)

/** The phase split of `wallMs` from a summing profiler's totals (`totalMs()` and `phaseMs()`). */
export const phasePercentsOf = (wallMs: number, implementationMs: number, phaseMs: Readonly<Record<string, number>>): PhasePercents => {
  const callMs = phaseMs[CALL_PHASE] ?? 0
  const observationMs = phaseMs[OBSERVE_PHASE] ?? 0
  const modelMs = phaseMs[MODEL_PHASE] ?? 0
  return {
    implementation: percentOf(implementationMs, wallMs),
    callWrapping: percentOf(Math.max(0, callMs - implementationMs), wallMs),
    observation: percentOf(observationMs, wallMs),
    modelAndChecks: percentOf(modelMs, wallMs),
    other: percentOf(Math.max(0, wallMs - Math.max(callMs, implementationMs) - observationMs - modelMs), wallMs)
  }
}

/** The lines of a phase-split table, one row per adapter. */
export const phaseSplitLines = (rows: ReadonlyArray<{ readonly adapter: string; readonly phasePercents: PhasePercents }>): ReadonlyArray<string> => [
  "   where the checked time went (% of wall time):",
  "adapter    implementation   call wrapping   observation   model and checks   other",
  ...rows.map(({ adapter, phasePercents: p }) =>
    `${adapter.padEnd(10)} ${p.implementation.toFixed(1).padStart(14)}   ${p.callWrapping.toFixed(1).padStart(13)}   ${p.observation.toFixed(1).padStart(11)}   ${p.modelAndChecks.toFixed(1).padStart(16)}   ${p.other.toFixed(1).padStart(5)}`
  )
]
