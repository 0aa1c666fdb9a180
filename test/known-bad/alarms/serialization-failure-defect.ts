/**
 * The scheduler maps only some SQL failures to its own storage error: it takes an advisory lock before
 * every transaction, so it treats a serialization failure as impossible and turns one into a defect
 * (`Effect.die`). When the database refuses a COMMIT under contention (Postgres SQLSTATE 40001, what
 * the `commitRefused` fault injects), the caller gets a defect carrying the raw `SqlError` instead of a
 * `StorageOperationError`: a refused external call or acknowledgement dies, and a handler whose own
 * write was refused fails with a defect, not with the storage error. Connection failures (`lostReply`)
 * and platform alarm failures (`setAlarmFails`) carry other reasons, so no earlier fault shows it.
 *
 * Breaks R4 (a transaction that does not commit fails the call with the scheduler's typed storage
 * error, upstream's `StorageOperationError`; nothing of it commits): ALM-004.
 */
import { Effect } from "effect"
import { isSqlError } from "effect/sql/SqlError"
import { knownBadAlarm } from "./kit.ts"

/** Serialization-failure-as-defect known-bad variant. */
export const serializationFailureDefect = knownBadAlarm({
  name: "serialization-failure-defect",
  bug: "a refused COMMIT (serialization failure) is treated as impossible under the advisory lock and becomes a defect carrying the raw SqlError, not a StorageOperationError",
  breaks: ["ALM-004"],
  pieces: {
    commitThenReport: (steps) =>
      Effect.gen(function*() {
        const result = yield* steps.transact(Effect.flatMap(steps.body, (value) => Effect.as(steps.reconcile, value))).pipe(
          Effect.catchIf((error) => isSqlError(error) && error.reason._tag === "SerializationError", (error) => Effect.die(error))
        )
        yield* steps.afterCommit
        yield* steps.report
        return result
      })
  }
})
