/**
 * A pool scenario: plain JSON that shrinks and replays. The pool's size and options, surface probes
 * run first, and the commands; every
 * command is resolved against the model when it runs (`models/pool/operations.ts`), so shrinking
 * any command keeps the rest meaningful.
 */
import type { PoolCommand } from "../../models/pool/index.ts"
import type { SurfaceProbe } from "./surfaceScenario.ts"

/** One generated pool scenario. */
export interface PoolScenario {
  /** Connections of the pool under test, 1..4. */
  readonly maxConnections: number
  /** The pool is built with `transformResultNames` (snake_case to camelCase); absent: false. */
  readonly transformNames?: boolean
  /** Surface probes run first, on the same pool (`surfaceScenario.ts`); absent: none. */
  readonly surface?: ReadonlyArray<SurfaceProbe>
  /** Probes on pools of their own (`ownPoolProbe`), run after `surface`, before the commands; absent: none. */
  readonly ownPool?: ReadonlyArray<SurfaceProbe>
  readonly commands: ReadonlyArray<PoolCommand>
}
