import type { BlindBugSet } from "./BlindBug.ts"

/** A second blind set for alarms, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "alarms",
  implementation: "examples/independent-alarms",
  bugs: [
    {
      id: "due-select-strictly-before-now",
      file: "examples/independent-alarms/store.ts",
      find: "WHERE a.wake_at <= ${nowMs}",
      replace: "WHERE a.wake_at < ${nowMs}",
      rules: ["R21"],
      summary: "Only pick up alarms whose wake time is strictly in the past, so a row armed for this very millisecond is left for the next pass.",
      observable: "An alarm whose effective wake equals the current time is not dispatched: processDueAlarms at exactly run_at (when the platform alarm fires) returns nothing and the row stays stored."
    },
    {
      id: "earlier-merge-keeps-only-strictly-earlier",
      file: "examples/independent-alarms/schedule.ts",
      find: "existing.runAt <= requestedRunAt",
      replace: "existing.runAt < requestedRunAt",
      rules: ["R16"],
      summary: "Keep the existing alarm only when it is strictly earlier; on an equal deadline take the caller's newer payload and repeat.",
      observable: "scheduleAlarmEarlier with the same runAt as the stored alarm replaces its payload and repeatEvery instead of keeping them."
    },
    {
      id: "ack-with-plain-statements",
      file: "examples/independent-alarms/dispatch.ts",
      find: "yield* runTransaction(ctx, () => acknowledge(ctx.store, row, configuration))",
      replace: "yield* acknowledge(ctx.store, row, configuration)",
      rules: ["R22", "R23"],
      summary: "Acknowledge with plain statements instead of a full transaction per row; the empty transaction at the end of the batch reconciles the platform alarm anyway.",
      observable: "A storage failure or crash in the middle of an acknowledgement leaves half of it committed: a repeat with run_at advanced but its old revision, attempts and wake_at (it fires again at once with the new scheduledAt), or a one-shot whose alarm row is gone but whose attempts row remains."
    },
    {
      id: "batch-skip-only-deleted-rows",
      file: "examples/independent-alarms/dispatch.ts",
      find: "if (current === undefined || current.revision !== row.revision) return",
      replace: "if (current === undefined) return",
      rules: ["R22"],
      summary: "Only skip rows that were deleted earlier in the batch; a row that is still stored is still work to do.",
      observable: "When one handler re-schedules another alarm that was selected in the same batch (e.g. to a later time or a new payload), that alarm's handler still runs in this batch with the stale event, and it is listed in handled or failed."
    },
    {
      id: "on-failure-error-only-logged",
      file: "examples/independent-alarms/failure.ts",
      find: "    if (Exit.isFailure(actionExit)) return yield* Effect.failCause(actionExit.cause)",
      replace: "    if (Exit.isFailure(actionExit)) yield* Effect.logWarning(\"alarm onFailure callback failed\", actionExit.cause)",
      rules: ["R24", "R26"],
      summary: "A broken onFailure callback is diagnostics only; log it and keep dispatching the other due alarms instead of aborting the batch.",
      observable: "processDueAlarms with an onFailure that fails succeeds and goes on to handle the rest of the batch, instead of failing with the onFailure error after rescheduling the row."
    },
    {
      id: "pass-closed-on-handler-success",
      file: "examples/independent-alarms/pass.ts",
      find: "    Effect.ensuring(Effect.sync(() => {\n      pass.active = false\n    }))",
      replace: "    Effect.map((value) => {\n      pass.active = false\n      return value\n    })",
      rules: ["R9", "R22"],
      summary: "Close the pass in the handler's result continuation rather than in a finalizer.",
      observable: "When a handler fails, dies or is interrupted, a fiber it forked can still call scheduleAlarm afterwards and the write succeeds as an in-pass self-rearm, instead of failing with \"cannot schedule detached work after their pass ends\"."
    },
    {
      id: "postgres-try-advisory-lock",
      file: "examples/independent-alarms/dialect.ts",
      find: "SELECT pg_advisory_xact_lock(",
      replace: "SELECT pg_try_advisory_xact_lock(",
      rules: ["R6", "R23"],
      summary: "Use the non-blocking try variant of the advisory lock so a scheduler call never queues behind a long transaction on another connection.",
      observable: "On Postgres, concurrent scheduler calls on different connections are no longer serialized: two transactions that schedule different alarms each reconcile from their own snapshot, and the last to commit leaves the platform alarm at its own row's wake rather than the smallest stored wake; two concurrent processDueAlarms can both run the same row."
    },
    {
      id: "build-defaults-override-call-config",
      file: "examples/independent-alarms/config.ts",
      find: "{ ...defaults, ...overlay }",
      replace: "{ ...overlay, ...defaults }",
      rules: ["R1"],
      summary: "Let the configuration the scheduler was built with take precedence, so an ambient provision cannot weaken a configured scheduler.",
      observable: "A per-call ScheduleConfiguration is ignored for every field that was set when the scheduler was built (e.g. built with budget 3, a call with budget 5 still parks after 3 attempts)."
    }
  ]
}
