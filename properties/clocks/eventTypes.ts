/**
 * The journal's event types in the model's words. C2 names the engine's four records (clock-scheduled,
 * clock-completed, deferred-completed, deferred-consumed) but no namespace for them, and the seed shows
 * only the effect boundary's full type (`flows.time-travel.effect-boundary`, compared as it is). So an
 * implementation's type names one of the four records when it is the C2 name itself or ends with `.`
 * and the name (a namespace of its own); the model spells them `engine.<name>`. Any other type is left
 * as written, and differs from the model's. Found by an independently written engine
 * (`examples/independent-clocks`), which writes the bare C2 names.
 */
import { EVENT } from "../../models/clocks/keys.ts"

const ENGINE_EVENT_TYPES: ReadonlyArray<string> = [EVENT.clockScheduled, EVENT.clockCompleted, EVENT.deferredCompleted, EVENT.deferredConsumed]

/** C2's name of a model event type: the part after its namespace's last dot. */
const c2Name = (modelType: string): string => modelType.slice(modelType.lastIndexOf(".") + 1)

/**
 * The model's spelling of an implementation's event type.
 *
 * @example modelEventType("clock-scheduled") // "engine.clock-scheduled"
 * @example modelEventType("acme.engine.clock-scheduled") // "engine.clock-scheduled"
 * @example modelEventType("clock-scheduled-v2") // "clock-scheduled-v2" (no C2 name: left as written)
 */
export const modelEventType = (eventType: string): string =>
  ENGINE_EVENT_TYPES.find((modelType) => eventType === c2Name(modelType) || eventType.endsWith(`.${c2Name(modelType)}`)) ?? eventType
