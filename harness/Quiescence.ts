/**
 * Waiting until a system under test is quiet, instead of sleeping: for subjects whose
 * implementation does real I/O the harness cannot pause (a pool's sessions to a server), a step ends
 * when no I/O is outstanding and the fibers have stopped moving, observed through a probe the harness
 * owns (for Postgres sessions, `PostgresWireTap`). The wait is a bounded loop of macrotask turns and
 * Effect scheduler yields; a system that never becomes quiet fails with a `HarnessError` naming the
 * bound, never hangs.
 */
import { Effect } from "effect"
import { HarnessError } from "./errors.ts"

/** What quiescence watches. */
export interface ActivityProbe {
  /** Whether I/O is outstanding (a request without its answer). */
  readonly busy: () => boolean
  /** A counter that moves whenever anything happens (bytes in either direction). */
  readonly activity: () => number
}

/** Options of `awaitQuiet`. */
export interface QuietOptions {
  /** Consecutive idle turns that count as quiet (default 3). */
  readonly quietTurns?: number
  /** Effect scheduler yields per turn, so fibers woken by I/O run (default 16). */
  readonly yieldsPerTurn?: number
  /** Turns before giving up (default 20 000, about 20 s of macrotask turns). */
  readonly maxTurns?: number
}

const macrotask: Effect.Effect<void> = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 0)))

/**
 * Waits until `probe` reports no outstanding I/O and no activity for `quietTurns` turns in a row.
 *
 * @example yield* awaitQuiet(tap) // after starting or releasing operations
 */
export const awaitQuiet = (probe: ActivityProbe, options: QuietOptions = {}): Effect.Effect<void, HarnessError> =>
  Effect.gen(function*() {
    const quietTurns = options.quietTurns ?? 3
    const yieldsPerTurn = options.yieldsPerTurn ?? 16
    const maxTurns = options.maxTurns ?? 20_000
    let idle = 0
    for (let turn = 0; turn < maxTurns; turn++) {
      const before = probe.activity()
      for (let count = 0; count < yieldsPerTurn; count++) yield* Effect.yieldNow
      yield* macrotask
      idle = !probe.busy() && probe.activity() === before ? idle + 1 : 0
      if (idle >= quietTurns) return
    }
    return yield* new HarnessError({
      message: `the system did not become quiet within ${maxTurns} turns (I/O kept going)`,
      hint: "an operation keeps talking to the server; check the implementation or the server"
    })
  })

/**
 * Waits until `condition()` holds, in turns of Effect scheduler yields and one macrotask, at most
 * `maxTurns` turns; true when it held, false when the bound ran out (the caller decides whether that is
 * a harness error or an observation, e.g. a notification that never arrived). Never sleeps.
 *
 * @example const arrived = yield* awaitCondition(() => received.length >= expected)
 */
export const awaitCondition = (condition: () => boolean, options: Pick<QuietOptions, "yieldsPerTurn" | "maxTurns"> = {}): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const yieldsPerTurn = options.yieldsPerTurn ?? 16
    const maxTurns = options.maxTurns ?? 2_000
    for (let turn = 0; turn < maxTurns; turn++) {
      if (condition()) return true
      for (let count = 0; count < yieldsPerTurn; count++) yield* Effect.yieldNow
      yield* macrotask
    }
    return condition()
  })
