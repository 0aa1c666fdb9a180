/**
 * A park report read inside the transaction and sent after commit: the report is not re-read after
 * commit (R27), so an external call that cancels or replaces the row between the commit and the report
 * (another request served while the batch waits) still gets a report for a parking that no longer
 * exists, and the batch's `parked` list names it.
 *
 * Breaks R27 (after commit, re-read each queued report; skip if gone or no longer parked): ALM-027,
 * ALM-052 (an external call during a handler pass wins over the batch's stale snapshot), and ALM-041
 * (reported only after the commit: a batch's `parked` entry read inside a transaction whose commit is
 * then refused stays in the list, so a retried park is listed twice; `alarms/migration` finds that on
 * do-sqlite with the `commitRefused` fault).
 */
import { Effect } from "effect"
import { AlarmReporter, type AlarmParked } from "../../../subjects/alarms/api.ts"
import { knownBadAlarm } from "./kit.ts"

/** Report-without-reread known-bad variant. */
export const reportWithoutReread = knownBadAlarm({
  name: "report-without-reread",
  bug: "park reports are read inside the transaction and sent after commit without re-reading the row, so a parking an external call undid meanwhile is still reported",
  breaks: ["ALM-027", "ALM-041", "ALM-052"],
  pieces: {
    commitThenReport: (steps) =>
      Effect.gen(function*() {
        const read: Array<AlarmParked> = []
        const result = yield* steps.transact(Effect.gen(function*() {
          const value = yield* steps.body
          yield* steps.reconcile
          // The rows are read here, before commit; what is sent after commit is this snapshot.
          yield* Effect.provideService(steps.report, AlarmReporter, (event) => Effect.sync(() => {
            read.push(event)
          }))
          return value
        }))
        yield* steps.afterCommit
        const report = yield* AlarmReporter
        for (const event of read) yield* Effect.exit(Effect.suspend(() => report(event)))
        return result
      })
  }
})
