/**
 * A pool scenario: plain JSON that shrinks and replays. The pool's size and the commands; every
 * command is resolved against the model when it runs (`models/pool/operations.ts`), so shrinking
 * any command keeps the rest meaningful.
 */
import type { PoolCommand } from "../../models/pool/index.ts"

/** One generated pool scenario. */
export interface PoolScenario {
  /** Connections of the pool under test, 1..4. */
  readonly maxConnections: number
  readonly commands: ReadonlyArray<PoolCommand>
}
