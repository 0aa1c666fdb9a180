/**
 * H1: the acknowledgement matches the row's content (run_at, payload, repeat) instead of its revision,
 * so a handler that re-schedules the same tag/id/time/payload loses its re-armed alarm.
 *
 * Breaks R23 (acknowledgement conditional on the revision; any handler write to its own row makes it a
 * no-op): ALM-023, and ALM-043 (a handler's own writes survive acknowledgement, citing H1).
 */
import { Clock, Effect } from "effect"
import { SCHEDULED_TABLE } from "../../../subjects/alarms/schema.ts"
import { knownBadAlarm } from "./kit.ts"

/** H1 known-bad variant. */
export const h1ContentAck = knownBadAlarm({
  name: "h1-content-ack",
  bug: "H1: acknowledgement matches row content instead of the revision; an identical self-rearm is lost",
  breaks: ["ALM-023", "ALM-043"],
  pieces: {
    acknowledge: (runtime, row, configuration) =>
      Effect.gen(function*() {
        const sql = runtime.store.sql
        const table = sql.literal(SCHEDULED_TABLE)
        if (row.repeatEveryMs === null) {
          const deleted = yield* sql`DELETE FROM ${table} WHERE storage_id = ${row.storageId} AND run_at = ${row.runAtMs}
            AND repeat_every_ms IS NULL AND payload = ${row.payloadJson} RETURNING storage_id`
          if (deleted.length > 0) yield* runtime.store.deleteAttempts(row.storageId)
          return
        }
        const runAtMs = (yield* Clock.currentTimeMillis) + Math.max(configuration.minimumRepeatIntervalMs, row.repeatEveryMs)
        const updated = yield* sql`UPDATE ${table} SET run_at = ${runAtMs} WHERE storage_id = ${row.storageId}
          AND run_at = ${row.runAtMs} AND repeat_every_ms = ${row.repeatEveryMs} AND payload = ${row.payloadJson}
          RETURNING storage_id`
        if (updated.length > 0) {
          yield* runtime.writeAttemptState(row.storageId, { attempts: 0, parked: false, retryAtMs: null, progress: row.progress }, runAtMs)
        }
      })
  }
})
