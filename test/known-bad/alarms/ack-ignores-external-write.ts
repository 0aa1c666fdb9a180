/**
 * An acknowledgement that re-reads the row but takes it as unchanged unless its attempts or its cursor
 * moved (what a handler's own re-arm always changes: it charges an attempt, R13, or advances the cursor,
 * R12). An external call during the pass (no source, R11) writes a fresh revision with a fresh budget
 * and the same cursor, so a row another request replaced while its handler ran is acknowledged away:
 * the one-shot replacement is deleted, the repeat is advanced from the replacement's deadline.
 *
 * Breaks R23 (the acknowledgement is conditional on the revision read at pass start; any write to the
 * row makes it a no-op): ALM-023, ALM-052 (an external call during a handler pass wins), and ALM-043
 * (H1): a handler's own re-arm of a parked row keeps its attempts (R13) and cursor, so it is
 * acknowledged away too (`alarms/model` finds that on do-sqlite).
 */
import { Effect } from "effect"
import { revisionAcknowledge } from "../../../subjects/alarms/pieces.ts"
import { knownBadAlarm } from "./kit.ts"

/** Ack-ignores-external-write known-bad variant. */
export const ackIgnoresExternalWrite = knownBadAlarm({
  name: "ack-ignores-external-write",
  bug: "the acknowledgement re-reads the row but treats it as unchanged unless attempts or cursor moved, so a replacement by an external call during the pass is acknowledged away",
  breaks: ["ALM-023", "ALM-043", "ALM-052"],
  pieces: {
    acknowledge: (runtime, row, configuration) =>
      Effect.gen(function*() {
        const current = yield* runtime.store.readRow(row.storageId)
        if (current === undefined || current.attempts !== row.attempts || current.progress !== row.progress) return
        yield* revisionAcknowledge(runtime, current, configuration)
      })
  }
})
