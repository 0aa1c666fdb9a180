import type { BlindBugSet } from "./BlindBug.ts"

export const bugs: BlindBugSet = {
  subject: "alarms",
  implementation: "examples/independent-alarms",
  bugs: [
    {
      id: "repeat-ack-advances-from-run-at",
      file: "examples/independent-alarms/acknowledge.ts",
      find: "    const nowMs = yield* Clock.currentTimeMillis\n    const runAt = nowMs + Math.max(configuration.minimumRepeatIntervalMs, row.repeatEveryMs)",
      replace: "    const runAt = row.runAt + Math.max(configuration.minimumRepeatIntervalMs, row.repeatEveryMs)",
      rules: ["R23"],
      summary: "Advance a completed repeat from its scheduled run_at instead of the wall clock, so the cadence stays aligned to the original schedule.",
      observable: "A repeating alarm dispatched late fires again immediately (scheduledAt steps by one interval from the old deadline) until it has replayed every missed occurrence."
    },
    {
      id: "failure-backoff-floors-instead-of-scaling",
      file: "examples/independent-alarms/acknowledge.ts",
      find: "const retryAt = nowMs + retryDelayMs(attempts, parked, configuration, baseMs)",
      replace: "const retryAt = nowMs + Math.max(baseMs, retryDelayMs(attempts, parked, configuration))",
      rules: ["R2", "R25"],
      summary: "Treat retryFailedAfter as a floor on the default backoff curve rather than passing it as the curve base.",
      observable: "With retryFailedAfter of e.g. 10 s a failing alarm retries after 10, 10, 10, 16, 32 s instead of 10, 20, 40, 80 s; the default base is unaffected."
    },
    {
      id: "migration-backfill-only-parked-retry",
      file: "examples/independent-alarms/schema.ts",
      find: "WHERE s.storage_id = ${ALARMS_TABLE}.storage_id), run_at))",
      replace: "WHERE s.storage_id = ${ALARMS_TABLE}.storage_id AND s.parked = 1), run_at))",
      rules: ["R3"],
      summary: "Only carry the old retry_at into wake_at for parked rows during the wake_at backfill, since only those have a far-off retry.",
      observable: "After upgrading a layout with attempt tracking, a backing-off (not parked) row fires at its original run_at instead of waiting for its stored retry_at; the platform alarm is set too early."
    },
    {
      id: "replay-drop-strict-less-than",
      file: "examples/independent-alarms/schedule.ts",
      find: "input.progress <= progress",
      replace: "input.progress < progress",
      rules: ["R11"],
      summary: "Drop external notices whose cursor is behind the stored cursor.",
      observable: "Re-sending an external schedule with the same cursor as stored is no longer ignored: it rewrites the row (new run_at/payload) and resets the attempt budget, un-parking a parked alarm."
    },
    {
      id: "park-report-before-commit",
      file: "examples/independent-alarms/transaction.ts",
      find: "      yield* reconcile(ctx)\n      return value\n    })\n    const value = yield* ctx.sql.withTransaction(body).pipe(\n      Effect.mapError((error): E | StorageOperationError =>\n        error instanceof ClosureFailure\n          ? (error.error as E)\n          : error instanceof StorageOperationError\n          ? error\n          : new StorageOperationError({ operation: \"transaction\", cause: error })\n      )\n    )\n    yield* reportParked(ctx.store, queue)\n    return value",
      replace: "      yield* reportParked(ctx.store, queue)\n      yield* reconcile(ctx)\n      return value\n    })\n    const value = yield* ctx.sql.withTransaction(body).pipe(\n      Effect.mapError((error): E | StorageOperationError =>\n        error instanceof ClosureFailure\n          ? (error.error as E)\n          : error instanceof StorageOperationError\n          ? error\n          : new StorageOperationError({ operation: \"transaction\", cause: error })\n      )\n    )\n    return value",
      rules: ["R4", "R27"],
      summary: "Emit park reports inside the transaction, right after the closure, so the report reads the rows on the same connection before reconcile.",
      observable: "When setAlarm or the commit fails after a row parks, an AlarmParked report is still emitted for a park that rolled back, and the retried call reports the same episode a second time."
    },
    {
      id: "set-alarm-failure-swallowed",
      file: "examples/independent-alarms/transaction.ts",
      find: "else yield* ctx.platformAlarm.set(next).pipe(storage(\"setAlarm\"))",
      replace: "else yield* Effect.exit(ctx.platformAlarm.set(next).pipe(storage(\"setAlarm\")))",
      rules: ["R6"],
      summary: "Make setting the platform alarm best-effort so a transient setAlarm error does not throw away the scheduling work; the next reconcile repairs it.",
      observable: "If setAlarm fails, scheduleAlarm/transaction succeed and the row is committed while the platform alarm is stale or missing, instead of failing with StorageOperationError and rolling back."
    },
    {
      id: "handle-guard-or-instead-of-and",
      file: "examples/independent-alarms/transaction.ts",
      find: "isActive() && fiber === owner ? Effect.suspend(effect) : refused(operation)",
      replace: "isActive() || fiber === owner ? Effect.suspend(effect) : refused(operation)",
      rules: ["R5", "R6"],
      summary: "Allow handle calls when the handle is active or when called from the owning fiber.",
      observable: "A fiber forked inside a transaction closure can schedule/cancel while the closure runs, and a handle escaped from a transaction still writes rows afterwards on the caller's fiber, outside any transaction and without reconciling the platform alarm."
    },
    {
      id: "status-retry-at-effective-wake",
      file: "examples/independent-alarms/scheduler.ts",
      find: "retryAt: row.retryAt === null ? undefined : DateTime.makeUnsafe(row.retryAt)",
      replace: "retryAt: row.retryAt === null ? undefined : DateTime.makeUnsafe(Math.max(row.runAt, row.retryAt))",
      rules: ["R28"],
      summary: "Report the effective retry time in getAlarmStatus, matching what AlarmParked reports.",
      observable: "For an alarm whose run_at is later than its retry_at (e.g. a far-future self-rearm that was charged), getAlarmStatus().retryAt equals runAt instead of the raw stored retry_at."
    }
  ]
}
