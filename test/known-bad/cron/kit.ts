/**
 * The known-bad kit bound to the cron subject: the shipped runtime's pieces
 * (`subjects/cron/pieces.ts`) and `makeCronRuntime`. Each known-bad cron implementation is a
 * declaration passed to `knownBadCron`: exactly one piece swapped, the bug in one line, and the
 * requirements it breaks (read from `shared/reference/cron.md` and `spec/cron.ts`).
 */
import { buildKnownBad, type BuiltKnownBad, type KnownBad, type PieceKit } from "../../../harness/knownBad.ts"
import type { CronImplementation } from "../../../subjects/cron/api.ts"
import { makeCronRuntime } from "../../../subjects/cron/make.ts"
import { type CronPieces, defaultCronPieces } from "../../../subjects/cron/pieces.ts"

/** How a cron implementation is built from pieces. */
export const cronPieceKit: PieceKit<CronPieces, CronImplementation> = {
  defaults: defaultCronPieces,
  build: (name, pieces) => ({ name, make: makeCronRuntime(pieces) })
}

/** One built known-bad cron implementation. */
export type KnownBadCron = BuiltKnownBad<CronPieces, CronImplementation>

/** Builds a known-bad cron implementation from its declaration (throws unless exactly one piece is swapped). */
export const knownBadCron = (declaration: KnownBad<CronPieces>): KnownBadCron => buildKnownBad(cronPieceKit, declaration)
