/**
 * The known-bad kit bound to the pool subject: the shipped pool's pieces (`subjects/pool/pieces.ts`)
 * and `makePoolImplementation`. Each known-bad pool is a declaration passed to `knownBadPool`: exactly
 * one piece swapped, the bug in one line, and the requirements it breaks (`spec/pool.ts`).
 */
import { buildKnownBad, type BuiltKnownBad, type KnownBad, type PieceKit } from "../../../harness/knownBad.ts"
import type { PoolImplementation } from "../../../subjects/pool/api.ts"
import { makePoolImplementation } from "../../../subjects/pool/make.ts"
import { defaultPoolPieces, type PoolPieces } from "../../../subjects/pool/pieces.ts"

/** How a pool implementation is built from pieces. */
export const poolPieceKit: PieceKit<PoolPieces, PoolImplementation> = {
  defaults: defaultPoolPieces,
  build: (name, pieces) => makePoolImplementation(name, pieces)
}

/** One built known-bad pool. */
export type KnownBadPool = BuiltKnownBad<PoolPieces, PoolImplementation>

/** Builds a known-bad pool from its declaration (throws unless exactly one piece is swapped). */
export const knownBadPool = (declaration: KnownBad<PoolPieces>): KnownBadPool => buildKnownBad(poolPieceKit, declaration)
