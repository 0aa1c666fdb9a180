/**
 * Boundary and combination situations (coverage only, no behaviour): a configuration rejected only
 * by its cross-field check, a fractional duration rounded up and accepted, a repeat exactly at its
 * floor, a call with two invalid inputs (which check wins is the validation order), a backoff delay
 * reaching the parked cap while not parked, and a row due exactly at the clock. The rules decide
 * nothing here; these names let the coverage table show that generation reaches each boundary.
 */
import { type ConfigurationLayers, resolveConfiguration } from "./configuration.ts"
import type { ProcessOptions, ScheduleInput } from "./operations.ts"
import { reach, type StepRun } from "./run.ts"
import { isUnencodablePayload, isValidProgress, isValidRunAt, refProblem, resolveFailureDelay, resolveLimit, resolveRepeatEvery } from "./validation.ts"

/** The reason `resolveConfiguration` gives when only the cross-field check fails. */
const CROSS_FIELD_REASON = "parkedRetryDelay must be at least minimumRetryDelay"

const isFraction = (value: number | undefined): boolean => value !== undefined && Number.isFinite(value) && !Number.isInteger(value)

/** Situations of the configuration a call resolves: cross-field rejection, fractional durations rounded up. */
export const reachConfigurationBoundaries = (run: StepRun, layers: ConfigurationLayers): void => {
  const resolved = resolveConfiguration(layers)
  if (!resolved.ok) {
    if (resolved.reason === CROSS_FIELD_REASON) reach(run, "crossFieldConfigurationRejected")
    return
  }
  const input = { ...layers.captured, ...layers.ambient }
  if (isFraction(input.minimumRetryDelayMs) || isFraction(input.parkedRetryDelayMs) || isFraction(input.minimumRepeatIntervalMs)) {
    reach(run, "fractionalDurationRoundedUp")
  }
}

/** Situations of one schedule's inputs: two or more invalid inputs, a repeat at its floor or rounded up. */
export const reachScheduleBoundaries = (run: StepRun, input: ScheduleInput, typedProblem: boolean): void => {
  reachConfigurationBoundaries(run, run.state.configuration)
  const resolved = resolveConfiguration(run.state.configuration)
  const floorMs = resolved.ok ? resolved.configuration.minimumRepeatIntervalMs : null
  const repeat = floorMs === null ? null : resolveRepeatEvery(input.repeatEveryMs, floorMs)
  const problems = [
    typedProblem,
    !resolved.ok,
    refProblem(input) !== null,
    repeat !== null && !repeat.ok,
    isUnencodablePayload(input.payload),
    !isValidRunAt(input.runAtMs),
    input.progress !== undefined && !isValidProgress(input.progress)
  ].filter(Boolean).length
  if (problems >= 2) reach(run, "twoInvalidInputsRejected")
  if (problems > 0 || repeat === null || !repeat.ok || repeat.repeatEveryMs === null) return
  if (repeat.repeatEveryMs === floorMs) reach(run, "repeatAtFloorAccepted")
  if (isFraction(input.repeatEveryMs)) reach(run, "fractionalDurationRoundedUp")
}

/** Situations of `processDueAlarms` options: two invalid inputs, a fractional failure delay rounded up. */
export const reachDispatchBoundaries = (run: StepRun, options: ProcessOptions): void => {
  reachConfigurationBoundaries(run, run.state.configuration)
  const resolved = resolveConfiguration(run.state.configuration)
  const minimumRetryDelayMs = resolved.ok ? resolved.configuration.minimumRetryDelayMs : 1_000
  const delayInvalid = options.retryFailedAfterMs !== undefined && !resolveFailureDelay(options.retryFailedAfterMs, minimumRetryDelayMs).ok
  const problems = [!resolved.ok, !resolveLimit(options.limit).ok, delayInvalid].filter(Boolean).length
  if (problems >= 2) reach(run, "twoInvalidInputsRejected")
  if (problems === 0 && isFraction(options.retryFailedAfterMs)) reach(run, "fractionalDurationRoundedUp")
}
