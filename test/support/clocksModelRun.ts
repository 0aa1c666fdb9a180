/**
 * The clocks reference model stepped over a list of commands, each at the model's current time, as
 * the clocks tests read it: the outcome of every step and the last state.
 */
import { type FaultedCommand, initialState, type ModelState, step, type StepOutcome } from "../../models/clocks/index.ts"

/** Steps `commands` in order from `from` (the initial state at time 0 by default), each at the model's current time. */
export const runClocksModel = (commands: ReadonlyArray<FaultedCommand>, from: ModelState = initialState()): { readonly state: ModelState; readonly outcomes: ReadonlyArray<StepOutcome> } => {
  let state = from
  const outcomes = commands.map((command) => {
    const outcome = step(state, { command, atMs: state.nowMs })
    state = outcome.state
    return outcome
  })
  return { state, outcomes }
}
