/**
 * The clocks reference model as a `ReferenceModel` (porcupine's five functions): init, step,
 * describeOperation, describeState, observableState.
 */
import type { ReferenceModel } from "../../harness/ReferenceModel.ts"
import { step } from "./step.ts"
import type { ModelState, Operation, StepOutcome } from "./types.ts"

/** The state before any operation at virtual time `nowMs`. */
export const initialState = (nowMs = 0): ModelState => ({
  nowMs,
  deferreds: {},
  clocks: {},
  journal: {},
  timers: [],
  processB: false,
  waiting: {},
  lossyLatched: false,
  effectRuns: 0,
  seq: 0
})

/** The observable part of the state: rows, journal projection and effect runs. */
export const observableOf = (state: ModelState) => ({
  deferreds: Object.keys(state.deferreds).sort().map((key) => state.deferreds[key]!),
  clocks: Object.keys(state.clocks).sort().map((key) => state.clocks[key]!),
  journal: Object.fromEntries(Object.keys(state.journal).sort().map((id) => [id, { eventType: state.journal[id]!.eventType, payload: state.journal[id]!.payload }])),
  effectRuns: state.effectRuns
})

/** The clocks model. */
export const clocksModel: ReferenceModel<ModelState, Operation, StepOutcome, number, ReturnType<typeof observableOf>> = {
  name: "clocks-model",
  description: "durable deferreds, absolute clocks and their journal (engine-store 1.0.0-rc.4 DeferredPersistence, reference/clocks.md C1-C13)",
  init: (nowMs) => initialState(nowMs ?? 0),
  step,
  describeOperation: (operation) => {
    const { op, ...args } = operation.command
    return `${op} ${JSON.stringify(args)} at +${operation.atMs}`
  },
  describeState: (state) =>
    `${Object.keys(state.clocks).length} clocks (${Object.values(state.clocks).filter((clock) => clock.completedAtMs === null).length} pending), ` +
    `${Object.keys(state.deferreds).length} completions, ${Object.keys(state.journal).length} records, ${state.timers.length} live timers`,
  observableState: observableOf
}
