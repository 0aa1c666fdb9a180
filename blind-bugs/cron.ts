import type { BlindBugSet } from "./BlindBug.ts"

/** Blind bugs seeded into examples/third-party-cron (one exact replacement each). */
export const bugs: BlindBugSet = {
  subject: "cron",
  implementation: "examples/third-party-cron",
  bugs: [
    {
      id: "fold-resolves-to-later-occurrence",
      file: "examples/third-party-cron/zone.ts",
      find: "if (valid.length > 0) return Math.min(...valid)",
      replace: "if (valid.length > 0) return Math.max(...valid)",
      rules: ["N2"],
      summary: "Resolve an ambiguous wall time in a DST fold to the standard-time (later) instant.",
      observable: "A zoned schedule whose wall time is repeated by a fall-back fold fires at the second occurrence (an hour late) instead of the first."
    },
    {
      id: "either-day-rule-key-drops-day-of-month",
      file: "examples/third-party-cron/schedule.ts",
      find: "const dom = wall.dayRule === \"dom\" || wall.dayRule === \"either\"",
      replace: "const dom = wall.dayRule === \"dom\"",
      rules: ["N1"],
      summary: "Render the day-of-month field in the canonical key only for day-of-month schedules.",
      observable: "\"0 0 1 * 1\" gets the same timer key as \"0 0 * * 1\": declaring both raises DuplicateCronKeyError and one schedule's pending row is taken for the other's."
    },
    {
      id: "tick-id-expiry-min-instead-of-max",
      file: "examples/third-party-cron/ticks.ts",
      find: "Math.max(dueAtMs, nowMs) + retryWindowMs",
      replace: "Math.min(dueAtMs, nowMs) + retryWindowMs",
      rules: ["N3"],
      summary: "Clamp the tick id's expiry base between the due time and now.",
      observable: "Stored tick ids carry an expiry of now + retryWindow instead of dueAt + retryWindow, so a tick due later than the window has an already-expired id."
    },
    {
      id: "turn-ticks-written-after-commit",
      file: "examples/third-party-cron/ticks.ts",
      find: "  sql.withTransaction(Effect.gen(function*() {\n    yield* body\n    yield* writeTicks(sql, retryWindowMs, ref, entries, yield* Clock.currentTimeMillis)\n  }))",
      replace: "  Effect.gen(function*() {\n    yield* sql.withTransaction(body)\n    yield* writeTicks(sql, retryWindowMs, ref, entries, yield* Clock.currentTimeMillis)\n  })",
      rules: ["N4"],
      summary: "Commit the turn first and write its ticks afterwards to keep the turn's transaction short.",
      observable: "A crash or storage failure after the turn commits leaves a committed turn with no tick row (runTurn fails with SqlError although the turn's writes persisted)."
    },
    {
      id: "write-ticks-upsert-retimes-pending",
      file: "examples/third-party-cron/ticks.ts",
      find: "WHERE timer_key IS NOT NULL\n      DO NOTHING`",
      replace: "WHERE timer_key IS NOT NULL\n      DO UPDATE SET due_at_ms = excluded.due_at_ms, scheduled_at_ms = excluded.scheduled_at_ms`",
      rules: ["N4", "N8"],
      summary: "Upsert on the timer key so a pending tick is re-timed from the latest write.",
      observable: "A turn of an actor that already ticks moves its pending row: an overdue tick is pushed to the next instant and never delivered, and a turn during a runner's claim breaks the claim fence so that instant's rewrite is lost and the next instant only replays."
    },
    {
      id: "claim-ignores-declared-actor-types",
      file: "examples/third-party-cron/relay.ts",
      find: "AND ${sql.in(\"actor_type\", actorTypes)} AND due_at_ms <= ${nowMs}",
      replace: "AND due_at_ms <= ${nowMs}",
      rules: ["N6"],
      summary: "Claim every due $cron: row and let settleUnfired release the ones this runner does not declare.",
      observable: "A runner claims ticks of actor types it does not declare (they appear in claim() and their due_at is pushed by lease and backoff), delaying the runner that does declare them and using up the claim limit."
    },
    {
      id: "skip-window-boundary-inclusive",
      file: "examples/third-party-cron/relay.ts",
      find: "nowMs - Number(tick.scheduled_at) > schedule.skipMs",
      replace: "nowMs - Number(tick.scheduled_at) >= schedule.skipMs",
      rules: ["N7"],
      summary: "Treat a tick as stale once its lateness reaches the skip window.",
      observable: "A tick settled exactly skipMs after its scheduled instant is skipped and rewritten instead of delivered."
    },
    {
      id: "rewrite-next-after-scheduled-instant",
      file: "examples/third-party-cron/relay.ts",
      find: "const dueAtMs = entry.next(nowMs)",
      replace: "const dueAtMs = entry.next(Number(tick.scheduled_at))",
      rules: ["N8", "N7"],
      summary: "Time the rewritten tick from the instant that fired rather than from now, to avoid drift.",
      observable: "After a late delivery the rewritten row is due at the next missed instant (in the past), so missed instants are delivered one after another instead of collapsing into one, and stale ticks are rewritten repeatedly."
    }
  ]
}
