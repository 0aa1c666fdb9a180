import type { BlindBugSet } from "./BlindBug.ts"

/** A third blind set for alarms, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "alarms",
  implementation: "examples/independent-alarms",
  bugs: [
    {
      id: "parked-delay-floored-at-retry-minimum",
      file: "examples/independent-alarms/config.ts",
      find: "ceilMillis(input.parkedRetryDelay ?? PARKED_RETRY_DELAY_MS), PARKED_RETRY_DELAY_MS)",
      replace: "ceilMillis(input.parkedRetryDelay ?? PARKED_RETRY_DELAY_MS), MIN_RETRY_DELAY_MS)",
      rules: ["R1"],
      summary: "Validate parkedRetryDelay against the generic retry-delay floor; the cross-check against minimumRetryDelay below already keeps it consistent.",
      observable: "A configuration with parkedRetryDelay below one hour (e.g. 10 minutes) is accepted instead of failing with InvalidScheduleConfigurationError, and parked alarms then retry every 10 minutes."
    },
    {
      id: "migrate-before-transaction",
      file: "examples/independent-alarms/transaction.ts",
      find: "    const queue: ParkQueue = new Set()\n    const body = Effect.gen(function*() {\n      if (ctx.dialect.transactionLock !== undefined) {\n        yield* ctx.sql.unsafe(ctx.dialect.transactionLock).pipe(storage(\"alarm.lock\"))\n      }\n      yield* migrate(ctx.sql, ctx.dialect)\n",
      replace: "    const queue: ParkQueue = new Set()\n    yield* migrate(ctx.sql, ctx.dialect)\n    const body = Effect.gen(function*() {\n      if (ctx.dialect.transactionLock !== undefined) {\n        yield* ctx.sql.unsafe(ctx.dialect.transactionLock).pipe(storage(\"alarm.lock\"))\n      }\n",
      rules: ["R3", "R4"],
      summary: "Bring the schema up to date before opening the scheduler transaction, so DDL and catalog look-ups are not done under the transaction lock.",
      observable: "On an older layout, a scheduler call that then fails (an invalid ref inside transaction(), a failing setAlarm) still leaves the tables upgraded (wake_at added, old run_at index dropped) instead of the old layout untouched; concurrent first calls on Postgres race on the DDL."
    },
    {
      id: "reconcile-after-commit",
      file: "examples/independent-alarms/transaction.ts",
      find: "      yield* reconcile(ctx)\n      return value\n    })\n    const value = yield* ctx.sql.withTransaction(body).pipe(\n      Effect.mapError((error): E | StorageOperationError =>\n        error instanceof ClosureFailure\n          ? (error.error as E)\n          : error instanceof StorageOperationError\n          ? error\n          : new StorageOperationError({ operation: \"transaction\", cause: error })\n      )\n    )\n    yield* reportParked(ctx.store, queue)",
      replace: "      return value\n    })\n    const value = yield* ctx.sql.withTransaction(body).pipe(\n      Effect.mapError((error): E | StorageOperationError =>\n        error instanceof ClosureFailure\n          ? (error.error as E)\n          : error instanceof StorageOperationError\n          ? error\n          : new StorageOperationError({ operation: \"transaction\", cause: error })\n      )\n    )\n    yield* reconcile(ctx)\n    yield* reportParked(ctx.store, queue)",
      rules: ["R4", "R6"],
      summary: "Arm the platform alarm only after the transaction commits, so it is never set for rows that end up rolled back.",
      observable: "When setAlarm fails, scheduleAlarm reports StorageOperationError but the row stays committed (getAlarmStatus shows it) with the platform alarm stale; a crash after commit leaves the platform alarm unset for the new row, and concurrent calls can leave it at a stale wake."
    },
    {
      id: "source-progressed-any-target",
      file: "examples/independent-alarms/attempts.ts",
      find: "const sourceProgressed = source !== undefined && facts.storageId === source.storageId &&",
      replace: "const sourceProgressed = source !== undefined &&",
      rules: ["R12", "R13"],
      summary: "Treat a stored cursor ahead of the pass snapshot as progress for any schedule made in the pass, not only the pass's own row.",
      observable: "Inside a handler pass, re-scheduling another alarm whose stored cursor is ahead of the running alarm's cursor resets its attempts to 0 and un-parks it, instead of charging one attempt."
    },
    {
      id: "retry-failed-after-zero-accepted",
      file: "examples/independent-alarms/validate.ts",
      find: "if (!Number.isFinite(millis) || millis <= 0) throw",
      replace: "if (!Number.isFinite(millis) || millis < 0) throw",
      rules: ["R20", "R24"],
      summary: "Allow retryFailedAfter of zero, since it is floored at minimumRetryDelay anyway and zero reads naturally as 'use the minimum'.",
      observable: "processDueAlarms with retryFailedAfter: 0 runs instead of failing with InvalidProcessDueAlarmsOptionsError, and an onFailure action with retryFailedAfter 0 backs off from minimumRetryDelay rather than the call's base delay."
    },
    {
      id: "undecodable-payload-passed-raw",
      file: "examples/independent-alarms/dispatch.ts",
      find: "    return Exit.fail(new StoredAlarmDecodeError({ cause, storageId: row.storageId, tag: row.tag, id: row.alarmId }))",
      replace: "    return Exit.succeed({ id: row.alarmId, tag: row.tag, payload: row.payload, scheduledAt: DateTime.makeUnsafe(row.runAt) })",
      rules: ["R22", "R29"],
      summary: "Be lenient with legacy rows: when the stored payload is not valid JSON, hand the raw text to the handler instead of failing the alarm.",
      observable: "A stored row whose payload is not JSON is delivered to the handler with the raw text as payload, listed in handled and deleted, instead of taking the failure path (listed in failed without an event, backing off and parking)."
    },
    {
      id: "due-ordered-by-deadline",
      file: "examples/independent-alarms/store.ts",
      find: "ORDER BY a.wake_at, a.storage_id",
      replace: "ORDER BY a.run_at, a.storage_id",
      rules: ["R21"],
      summary: "Hand due alarms to handlers in logical deadline (run_at) order so the most overdue work runs first.",
      observable: "Due rows run in run_at order instead of effective-wake order: a backing-off row with an old run_at is dispatched before rows that woke earlier, and with a limit it takes their place in the batch."
    },
    {
      id: "repeat-ack-resets-cursor",
      file: "examples/independent-alarms/acknowledge.ts",
      find: "{ attempts: 0, parked: false, retryAt: null, progress: row.progress }, runAt)",
      replace: "{ attempts: 0, parked: false, retryAt: null, progress: -1 }, runAt)",
      rules: ["R23", "R11"],
      summary: "A completed repeat starts a fresh episode, so reset its attempts row to the defaults (attempts 0, no retry, cursor -1).",
      observable: "After a repeating alarm fires successfully, an external schedule carrying an old cursor (<= the one already stored) is no longer dropped: it rewrites the alarm's time and payload."
    }
  ]
}
