/**
 * Builds a known-bad alarms implementation by swapping exactly one piece of the shipped scheduler.
 * The suite must catch every one of them (each reproduces a bug from the scheduler's history or a
 * plausible regression); the shipped code itself has no bug flags.
 */
import type { AlarmsImplementation } from "../../../subjects/alarms/api.ts"
import { makeAlarmScheduler } from "../../../subjects/alarms/make.ts"
import type { AlarmPieces } from "../../../subjects/alarms/pieces.ts"
import { defaultAlarmPieces } from "../../../subjects/alarms/pieces.ts"

/** One known-bad implementation with what is wrong in it. */
export interface KnownBadAlarms {
  /** Stable id, e.g. `h1-content-ack`. */
  readonly id: string
  /** The bug in plain words. */
  readonly bug: string
  /** Rules (reference/alarms.md) the bug violates. */
  readonly rules: ReadonlyArray<string>
  /** The piece that was swapped. */
  readonly piece: keyof AlarmPieces
  readonly implementation: AlarmsImplementation
}

/** Swaps one piece of the shipped scheduler. */
export const swapOnePiece = <K extends keyof AlarmPieces>(
  options: { readonly id: string; readonly bug: string; readonly rules: ReadonlyArray<string>; readonly piece: K },
  replacement: AlarmPieces[K]
): KnownBadAlarms => ({
  id: options.id,
  bug: options.bug,
  rules: options.rules,
  piece: options.piece,
  implementation: {
    name: `known-bad/${options.id}`,
    make: makeAlarmScheduler({ ...defaultAlarmPieces, [options.piece]: replacement })
  }
})
