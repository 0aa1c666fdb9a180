import type { BlindBugSet } from "./BlindBug.ts"

export const bugs: BlindBugSet = {
  subject: "clocks",
  implementation: "examples/independent-clocks",
  bugs: [
    {
      id: "clock-cas-without-null-guard",
      file: "examples/independent-clocks/clockStore.ts",
      find: "          AND clock_name = ${address.clockName} AND completed_at_ms IS NULL\n",
      replace: "          AND clock_name = ${address.clockName}\n",
      rules: ["C10", "C9"],
      summary: "Simplified the clock completion UPDATE to match on the clock's primary key only; RETURNING still tells us the row was updated.",
      observable: "A clock fired a second time (re-armed after a rewind dropped its deferred, or fired again at a later time) overwrites completed_at_ms and re-emits clock-completed with a new time, which conflicts in the journal, rolls back and retries forever, so the deferred is never re-completed and the run stays stuck."
    },
    {
      id: "completion-record-from-request",
      file: "examples/independent-clocks/completion.ts",
      find: "      const completion = yield* ctx.deferreds.complete({\n        flowName: options.flowName,\n        executionId: options.executionId,\n        deferredName: options.deferredName,\n        exitJson: jsonText(options.exit),\n        metadataJson: options.metadata === undefined ? null : jsonText(options.metadata),\n        completedAtMs\n      })\n      yield* ctx.env.journal.emitDurableUnfenced(deferredCompleted(ctx.env.journalSource, completion.row))\n",
      replace: "      const input = {\n        flowName: options.flowName,\n        executionId: options.executionId,\n        deferredName: options.deferredName,\n        exitJson: jsonText(options.exit),\n        metadataJson: options.metadata === undefined ? null : jsonText(options.metadata),\n        completedAtMs\n      }\n      const completion = yield* ctx.deferreds.complete(input)\n      yield* ctx.env.journal.emitDurableUnfenced(deferredCompleted(ctx.env.journalSource, { ...input, consumedAtMs: null }))\n",
      rules: ["C5", "C2"],
      summary: "Build the deferred-completed record straight from the completion input instead of re-reading it off the stored row.",
      observable: "A second completion of an already-completed deferred (different value, or the same value at a later time, or a clock firing onto a deferred the user already completed) fails with a journal idempotency conflict instead of answering Existing; the clock fire retries forever."
    },
    {
      id: "waiting-guard-ignores-token",
      file: "examples/independent-clocks/completion.ts",
      find: "waiting.value.reason === expected.reason && waiting.value.token === expected.token",
      replace: "waiting.value.reason === expected.reason",
      rules: ["C6"],
      summary: "deferredDoneIfWaiting only checks that the run waits for the expected reason.",
      observable: "deferredDoneIfWaiting with a stale or wrong token completes the deferred and resumes the run (answers Created) while the run waits with the same reason but a different token, instead of answering NotWaiting and writing nothing."
    },
    {
      id: "consumed-record-uses-completion-time",
      file: "examples/independent-clocks/engine.ts",
      find: "deferredConsumed(ctx.env.journalSource, stored.value, consumedAtMs)",
      replace: "deferredConsumed(ctx.env.journalSource, stored.value, stored.value.completedAtMs)",
      rules: ["C7", "C2"],
      summary: "Record the deferred-consumed event from the stored row's timestamp.",
      observable: "The deferred-consumed journal record carries the completion time while the row's consumed_at_ms holds the read time, so rebuilding the tables from the journal gives a different consumed_at_ms whenever the read happens after the completion."
    },
    {
      id: "fired-clock-never-rearmed",
      file: "examples/independent-clocks/timers.ts",
      find: "        if (row.completedAtMs !== null) {\n          const completion = yield* ctx.deferreds.find(row).pipe(Effect.orDie)\n          if (Option.isSome(completion)) return\n        }\n",
      replace: "        if (row.completedAtMs !== null) return\n",
      rules: ["C9"],
      summary: "Skip arming clocks that already fired; no need to look up their deferred.",
      observable: "After a rewind drops a fired clock's deferred completion, replaying scheduleClock no longer re-arms the clock, so the deferred is never completed again and the waiting run never resumes."
    },
    {
      id: "clock-cas-failure-swallowed",
      file: "examples/independent-clocks/timers.ts",
      find: "      if (won) yield* ctx.env.journal.emitDurableUnfenced(clockCompleted(ctx.env.journalSource, row, completedAtMs))\n    }).pipe(Effect.orDie)\n",
      replace: "      if (won) yield* ctx.env.journal.emitDurableUnfenced(clockCompleted(ctx.env.journalSource, row, completedAtMs))\n    }).pipe(\n      Effect.catchCause((cause) =>\n        Effect.logWarning(\"independent-clocks: clock completion bookkeeping failed; the deferred completion stands\", cause)\n      )\n    )\n",
      rules: ["C10", "C4", "C11"],
      summary: "Treat the clock's completedAt CAS and its clock-completed record as best-effort bookkeeping so they cannot fail the fire.",
      observable: "When the clock-completed journal write or the clock UPDATE fails during a fire, the fire still commits: the clock row is marked completed with no clock-completed record (or stays pending after its deferred completed), and the fire is not retried, so the tables no longer match the journal."
    },
    {
      id: "fire-retry-skips-defects",
      file: "examples/independent-clocks/timers.ts",
      find: "          Effect.sandbox,\n",
      replace: "",
      rules: ["C11"],
      summary: "Drop the sandbox around the fire: fireClock has no typed errors, so retry it directly.",
      observable: "A fire that fails on a storage or journal error (surfaced as a defect) is never retried: the timer dies and the clock stays pending until the next restart sweep."
    },
    {
      id: "clock-schedule-check-then-insert",
      file: "examples/independent-clocks/clockStore.ts",
      find: "      yield* sql`INSERT INTO engine_clocks (${sql.unsafe(columns)})\n        VALUES (${row.flowName}, ${row.executionId}, ${row.clockName}, ${row.deferredName}, ${row.dueAtMs},\n          ${row.completedAtMs}, ${row.owner})\n        ON CONFLICT (flow_name, execution_id, clock_name) DO NOTHING`\n      const stored = yield* find(row)\n      if (Option.isNone(stored)) {\n        return yield* Effect.die(new Error(`clock ${row.clockName} vanished inside its scheduling transaction`))\n      }\n      return stored.value\n",
      replace: "      const existing = yield* find(row)\n      if (Option.isSome(existing)) return existing.value\n      yield* sql`INSERT INTO engine_clocks (${sql.unsafe(columns)})\n        VALUES (${row.flowName}, ${row.executionId}, ${row.clockName}, ${row.deferredName}, ${row.dueAtMs},\n          ${row.completedAtMs}, ${row.owner})`\n      return row\n",
      rules: ["C8"],
      summary: "Look the clock up first and insert only when it is missing, returning the stored row on replay.",
      observable: "Two concurrent scheduleClock calls for the same clock (two processes, or a replay racing the first call) can both see no row; the loser hits a primary-key violation and scheduleClock dies instead of returning the stored deadline."
    }
  ]
}
