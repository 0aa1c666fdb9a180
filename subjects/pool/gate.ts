/**
 * The fair gate (P2): one slot per connection, granted first come, first served. A freed slot is
 * handed to the oldest waiter directly (never returned to a free count a releasing fiber could take
 * again), and a waiter interrupted after it was handed a slot passes it on (P4: nothing leaks).
 */
import { Deferred, Effect, Exit, type Scope } from "effect"
import { hookPoint } from "../../harness/HookPoints.ts"
import { POOL_HANDED_OVER_HOOK } from "./api.ts"

/** The gate stage of one pool. */
export interface Gate {
  /** Waits for a slot in arrival order; the slot returns when the current scope closes. */
  readonly take: Effect.Effect<void, never, Scope.Scope>
}

/** Builds a gate with `slots` slots (one per connection). */
export type GateFactory = (slots: number) => Gate

/** Options of `makeFifoGate`. */
export interface FifoGateOptions {
  /** Pause at `POOL_HANDED_OVER_HOOK` after a hand-over (an optional refinement; upstream has none). */
  readonly handOverHook: boolean
}

/**
 * The FIFO gate, with or without its hand-over hook point.
 *
 * @example const gate = makeFifoGate({ handOverHook: false })(2)
 */
export const makeFifoGate = (options: FifoGateOptions): GateFactory => (slots) => {
  const afterHandOver = options.handOverHook ? hookPoint(POOL_HANDED_OVER_HOOK) : Effect.void
  let free = slots
  const waiters: Array<Deferred.Deferred<void>> = []
  const release: Effect.Effect<void> = Effect.sync(() => {
    const next = waiters.shift()
    if (next !== undefined) Deferred.doneUnsafe(next, Exit.void)
    else free += 1
    if (free > slots) throw new Error(`gate holds ${free} free slots of ${slots}`)
  })
  const take = Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      if (free > 0 && waiters.length === 0) {
        free -= 1
        return Effect.addFinalizer(() => release)
      }
      const granted = Deferred.makeUnsafe<void>()
      waiters.push(granted)
      return restore(Deferred.await(granted).pipe(Effect.andThen(afterHandOver))).pipe(
        Effect.onInterrupt(() =>
          Effect.suspend(() => {
            const index = waiters.indexOf(granted)
            if (index >= 0) {
              waiters.splice(index, 1)
              return Effect.void
            }
            // Handed a slot, then interrupted before using it: pass it on.
            return release
          })
        ),
        Effect.andThen(Effect.addFinalizer(() => release))
      )
    })
  )
  return { take }
}

/**
 * The shipped FIFO gate, with its hand-over hook point.
 *
 * @example const gate = fifoGate(2)
 */
export const fifoGate: GateFactory = makeFifoGate({ handOverHook: true })
