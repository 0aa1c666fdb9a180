/**
 * The known-bad kit bound to the alarms subject: the shipped scheduler's pieces
 * (`subjects/alarms/pieces.ts`) and `makeAlarmScheduler`. Each known-bad alarms implementation is a
 * declaration passed to `knownBadAlarm`: exactly one piece swapped, the bug in one line, and the
 * requirements it breaks (read from `shared/reference/alarms.md` and `spec/alarms.ts`).
 */
import { buildKnownBad, type BuiltKnownBad, type KnownBad, type PieceKit } from "../../../harness/knownBad.ts"
import type { AlarmsImplementation } from "../../../subjects/alarms/api.ts"
import { makeAlarmScheduler } from "../../../subjects/alarms/make.ts"
import { type AlarmPieces, defaultAlarmPieces } from "../../../subjects/alarms/pieces.ts"

/** How an alarms implementation is built from pieces. */
export const alarmsPieceKit: PieceKit<AlarmPieces, AlarmsImplementation> = {
  defaults: defaultAlarmPieces,
  build: (name, pieces) => ({ name, make: makeAlarmScheduler(pieces) })
}

/** One built known-bad alarms implementation. */
export type KnownBadAlarms = BuiltKnownBad<AlarmPieces, AlarmsImplementation>

/** Builds a known-bad alarms implementation from its declaration (throws unless exactly one piece is swapped). */
export const knownBadAlarm = (declaration: KnownBad<AlarmPieces>): KnownBadAlarms => buildKnownBad(alarmsPieceKit, declaration)
