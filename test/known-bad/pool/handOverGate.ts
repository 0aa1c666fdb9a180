/**
 * The shipped gate's shape (`subjects/pool/gate.ts`: a slot taken at once when free and nobody waits,
 * otherwise a queue of waiters handed slots in arrival order, with the hand-over hook point) with the
 * two choices a gate bug changes left to the known-bad: what a release does, and whether a waiter
 * interrupted after it was handed a slot passes it on.
 */
import { Deferred, Effect, Exit } from "effect"
import { hookPoint } from "../../../harness/HookPoints.ts"
import { POOL_HANDED_OVER_HOOK } from "../../../subjects/pool/api.ts"
import type { GateFactory } from "../../../subjects/pool/gate.ts"

/** The gate's counters, as a release sees them. */
export interface GateSlots {
  free: number
  readonly waiters: Array<Deferred.Deferred<void>>
}

/** The choices a gate bug changes. */
export interface HandOverGateChoices {
  /** What a release does to the slots (the shipped gate hands the slot to the oldest waiter, or frees it when none waits). */
  readonly release: (slots: GateSlots) => void
  /** Whether a waiter interrupted after it was handed a slot releases it again (the shipped gate does). */
  readonly passOnWhenInterruptedAfterHandOver: boolean
}

/** The shipped gate's release: hand the slot to the oldest waiter, or free it when none waits. */
export const handOverRelease = (slots: GateSlots): void => {
  const next = slots.waiters.shift()
  if (next !== undefined) Deferred.doneUnsafe(next, Exit.void)
  else slots.free += 1
}

/** A gate of the shipped shape with `choices` (see the module doc). */
export const handOverGateWith = (choices: HandOverGateChoices): GateFactory => (count) => {
  const slots: GateSlots = { free: count, waiters: [] }
  const release = Effect.sync(() => choices.release(slots))
  const take = Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      if (slots.free > 0 && slots.waiters.length === 0) {
        slots.free -= 1
        return Effect.addFinalizer(() => release)
      }
      const granted = Deferred.makeUnsafe<void>()
      slots.waiters.push(granted)
      return restore(Deferred.await(granted).pipe(Effect.andThen(hookPoint(POOL_HANDED_OVER_HOOK)))).pipe(
        Effect.onInterrupt(() =>
          Effect.suspend(() => {
            const index = slots.waiters.indexOf(granted)
            if (index >= 0) {
              slots.waiters.splice(index, 1)
              return Effect.void
            }
            return choices.passOnWhenInterruptedAfterHandOver ? release : Effect.void
          })
        ),
        Effect.andThen(Effect.addFinalizer(() => release))
      )
    })
  )
  return { take }
}
