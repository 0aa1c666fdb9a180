/**
 * The known-bad kit bound to the clocks subject: the shipped engine's pieces
 * (`subjects/clocks/pieces.ts`) and `makeClocks`. Each known-bad clocks implementation is a
 * declaration passed to `knownBadClock`: exactly one piece swapped, the bug in one line, and the
 * requirements it breaks (read from `shared/reference/clocks.md` and `spec/clocks.ts`).
 */
import { buildKnownBad, type BuiltKnownBad, type KnownBad, type PieceKit } from "../../../harness/knownBad.ts"
import type { ClocksImplementation } from "../../../subjects/clocks/api.ts"
import { makeClocks } from "../../../subjects/clocks/make.ts"
import { type ClockPieces, defaultClockPieces } from "../../../subjects/clocks/pieces.ts"

/** How a clocks implementation is built from pieces. */
export const clocksPieceKit: PieceKit<ClockPieces, ClocksImplementation> = {
  defaults: defaultClockPieces,
  build: (name, pieces) => ({ name, make: makeClocks(pieces) })
}

/** One built known-bad clocks implementation. */
export type KnownBadClocks = BuiltKnownBad<ClockPieces, ClocksImplementation>

/** Builds a known-bad clocks implementation from its declaration (throws unless exactly one piece is swapped). */
export const knownBadClock = (declaration: KnownBad<ClockPieces>): KnownBadClocks => buildKnownBad(clocksPieceKit, declaration)
