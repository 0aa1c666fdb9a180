/**
 * The handler pass: which stored row a `processDueAlarms` handler (or its `onFailure`) is running for.
 */
import { Context, Effect } from "effect"
import type { AlarmParked } from "../../subjects/alarms/api.ts"
import type { StoredAlarm } from "./store.ts"

/** One pass: the row snapshot at selection, the batch's parked list, and whether it is still running. */
export interface HandlerPass {
  readonly source: StoredAlarm
  readonly parked: Array<AlarmParked>
  active: boolean
}

/** The pass of the current fiber, if any; forked fibers inherit it and see it end (R9). */
export const CurrentPass = Context.Reference<HandlerPass | undefined>(
  "independent-alarms/CurrentPass",
  { defaultValue: () => undefined }
)

/** Runs `effect` inside a fresh pass for `source`; the pass becomes inactive when `effect` exits. */
export const withinPass = (source: StoredAlarm, parked: Array<AlarmParked>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const pass: HandlerPass = { source, parked, active: true }
  return effect.pipe(
    Effect.provideService(CurrentPass, pass),
    Effect.ensuring(Effect.sync(() => {
      pass.active = false
    }))
  )
}
