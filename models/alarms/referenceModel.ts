/**
 * The alarms model as one `ReferenceModel` value (porcupine style): `init`, `step`,
 * `describeOperation`, `describeState` and `observableState`, under one name. Pure and synchronous;
 * the harness type is imported for its shape only.
 *
 * @example
 * ```ts
 * const outcome = alarmsModel.step(alarmsModel.init(), { kind: "rebuildService" })
 * alarmsModel.describeState(outcome.state) // "platform alarm: absent; reports so far: 0"
 * ```
 */
import type { ReferenceModel } from "../../harness/ReferenceModel.ts"
import { describeOperation, describeState } from "./describe.ts"
import type { Operation } from "./operations.ts"
import { init, type InitOptions, type ModelState } from "./state.ts"
import { observableState, type ObservableState } from "./status.ts"
import { step, type StepOutcome } from "./step.ts"

/** Name of the alarms reference model in reports. */
export const ALARMS_MODEL_NAME = "alarms-model"

/** The alarms reference model: effect-cf 0.52 `DurableObjectAlarm` as `shared/reference/alarms.md` states it. */
export const alarmsModel: ReferenceModel<ModelState, Operation, StepOutcome, InitOptions, ObservableState> = {
  name: ALARMS_MODEL_NAME,
  description: "effect-cf 0.52 DurableObjectAlarm (reference page alarms.md: rules R1-R29, edge cases E1-E10, bugs H1-H6)",
  init,
  step,
  describeOperation,
  describeState,
  observableState
}
