import type { BlindBugSet } from "./BlindBug.ts"

/** A third blind set for cron, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "cron",
  implementation: "examples/third-party-cron",
  bugs: [
    {
      id: "turn-ticks-timed-from-turn-start",
      file: "examples/third-party-cron/ticks.ts",
      find: "  sql.withTransaction(Effect.gen(function*() {\n    yield* body\n    yield* writeTicks(sql, retryWindowMs, ref, entries, yield* Clock.currentTimeMillis)\n  }))",
      replace: "  sql.withTransaction(Effect.gen(function*() {\n    const turnStartedAtMs = yield* Clock.currentTimeMillis\n    yield* body\n    yield* writeTicks(sql, retryWindowMs, ref, entries, turnStartedAtMs)\n  }))",
      rules: ["N4"],
      summary: "Read the clock once when the turn starts so the turn and its ticks share one timestamp.",
      observable: "When time passes during a turn's body, its ticks are due at next(turn start) rather than next(write time): the tick id and due_at predate the write, and an instant that passed during the turn is due at once."
    },
    {
      id: "claim-selects-any-timer-key",
      file: "examples/third-party-cron/relay.ts",
      find: "WHERE timer_key IS NOT NULL AND substr(timer_key, 1, ${CRON_PREFIX.length}) = ${CRON_PREFIX}",
      replace: "WHERE timer_key IS NOT NULL",
      rules: ["N6", "N1"],
      summary: "Drop the substr prefix test from the claim (not index-friendly); timer_key IS NOT NULL already selects timer rows.",
      observable: "An application timer row (a non-$cron timer key) of a declared actor type is claimed by the cron relay, and since no entry matches it, it is pushed back by the backoff or deleted once stale."
    },
    {
      id: "undeclared-entry-deleted-even-when-fresh",
      file: "examples/third-party-cron/relay.ts",
      find: "      if (stale) yield* sql`DELETE FROM actor_outbox WHERE ${fenceOf(sql, tick)}`\n      else yield* sql`UPDATE actor_outbox SET due_at_ms = ${nowMs + backoffMs} WHERE ${fenceOf(sql, tick)}`\n",
      replace: "      yield* sql`DELETE FROM actor_outbox WHERE ${fenceOf(sql, tick)}`\n",
      rules: ["N7"],
      summary: "Drop ticks of entries this runner does not declare instead of bouncing them between runners with a backoff.",
      observable: "During a rolling deploy, a runner without a newly added entry claims its fresh tick and deletes it, so the runner that declares the entry never sees it and the entry stops firing."
    },
    {
      id: "claim-lease-extends-due-time",
      file: "examples/third-party-cron/relay.ts",
      find: "    const untilMs = nowMs + options.leaseMs\n    const lock = sql.literal(dialect === \"postgres\" ? \"FOR UPDATE SKIP LOCKED\" : \"\")\n    const rows = yield* sql<ClaimedTick>`UPDATE actor_outbox SET due_at_ms = ${untilMs}",
      replace: "    const lock = sql.literal(dialect === \"postgres\" ? \"FOR UPDATE SKIP LOCKED\" : \"\")\n    const rows = yield* sql<ClaimedTick>`UPDATE actor_outbox SET due_at_ms = due_at_ms + ${options.leaseMs}",
      rules: ["N6", "N8"],
      summary: "Extend a claimed row's due time by the lease instead of stamping now + lease, so the claim does not depend on the runner's clock.",
      observable: "A tick overdue by more than the lease is still due right after it is claimed (claimed_until <= now): a second runner claims the same tick at once and the first runner's settling writes then change nothing."
    },
    {
      id: "next-run-uses-offset-at-after",
      file: "examples/third-party-cron/schedule.ts",
      find: "  const startWallMs = Math.floor(wallMsOf(zone, afterMs) / MINUTE_MS) * MINUTE_MS\n  for (const wallMs of matchingWalls(wall, startWallMs)) {\n    const instantMs = instantOfWall(zone, wallMs)\n",
      replace: "  const offsetMs = wallMsOf(zone, afterMs) - afterMs\n  const startWallMs = Math.floor((afterMs + offsetMs) / MINUTE_MS) * MINUTE_MS\n  for (const wallMs of matchingWalls(wall, startWallMs)) {\n    const instantMs = wallMs - offsetMs\n",
      rules: ["N2"],
      summary: "Look the zone offset up once at `after` instead of resolving every candidate wall time through Intl.",
      observable: "The first tick computed across a DST change is an hour off (a daily 09:00 America/New_York tick written the day before spring-forward is due at 10:00 EDT), and a wall time in a gap fires at gap end + its minutes (02:30 -> 03:30) instead of at 03:00."
    },
    {
      id: "either-day-rule-requires-both-fields",
      file: "examples/third-party-cron/schedule.ts",
      find: "return wall.daysOfMonth.includes(dayOfMonth) || wall.daysOfWeek.includes(dayOfWeek)",
      replace: "return wall.daysOfMonth.includes(dayOfMonth) && wall.daysOfWeek.includes(dayOfWeek)",
      rules: ["N2"],
      summary: "When both day fields are restricted, a day must satisfy both of them.",
      observable: "\"0 0 1 * 1\" is due only on Mondays that fall on the 1st instead of on every 1st and every Monday, so next() skips weeks or months of scheduled instants."
    },
    {
      id: "every-one-second-rejected",
      file: "examples/third-party-cron/schedule.ts",
      find: "everyMs < MIN_EVERY_MS",
      replace: "everyMs <= MIN_EVERY_MS",
      rules: ["N1"],
      summary: "Reject @every intervals that are not longer than the one-second minimum.",
      observable: "defineSchedule fails with InvalidCronEntryError for \"@every 1s\" and \"@every 1000ms\", which the rules allow (>= 1 s)."
    },
    {
      id: "settle-fired-deletes-when-rewrite-fails",
      file: "examples/third-party-cron/relay.ts",
      find: "    else yield* rewrite(deps, tick, entry)\n",
      replace: "    else yield* rewrite(deps, tick, entry).pipe(\n      Effect.catch(() => deps.sql`DELETE FROM actor_outbox WHERE ${fenceOf(deps.sql, tick)}`)\n    )\n",
      rules: ["N8"],
      summary: "If the rewrite after a delivery fails, drop the delivered tick rather than leave a row that would be replayed forever.",
      observable: "A storage failure on settleFired's rewrite is reported as success and the row is deleted: an entry that is still declared never gets another tick (instead of being rewritten after the lease)."
    }
  ]
}
