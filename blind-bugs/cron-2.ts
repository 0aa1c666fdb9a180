import type { BlindBugSet } from "./BlindBug.ts"

/** A second blind set for cron, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "cron",
  implementation: "examples/third-party-cron",
  bugs: [
    {
      id: "every-next-ceil-not-strict",
      file: "examples/third-party-cron/schedule.ts",
      find: "(Math.floor(afterMs / everyMs) + 1) * everyMs",
      replace: "Math.ceil(afterMs / everyMs) * everyMs",
      rules: ["N2"],
      summary: "Simplify the next @every instant to the ceiling multiple of the interval.",
      observable: "An @every tick written or rewritten at an exact multiple of its interval is due at that same instant (due_at = now): the first tick fires immediately and a tick settled on time is rewritten to the instant it just fired, so it fires twice."
    },
    {
      id: "dst-gap-resolves-before-transition",
      file: "examples/third-party-cron/zone.ts",
      find: "  return highSec * 1000\n",
      replace: "  return lowSec * 1000\n",
      rules: ["N2"],
      summary: "Take the bisection's lower bound so a skipped wall time resolves to the last second the old offset still holds.",
      observable: "A zoned schedule whose wall time falls in a spring-forward gap (e.g. 02:30 America/New_York) fires at 01:59:59 before the jump instead of at 03:00, the first instant after the gap."
    },
    {
      id: "receipt-lookup-keyed-on-row-command",
      file: "examples/third-party-cron/relay.ts",
      find: "AND command_id = ${tick.intent_id}`,",
      replace: "AND command_id = ${tick.intent_id} AND command = ${tick.command}`,",
      rules: ["N7"],
      summary: "Match receipts on the command as well as the id, so a receipt of another command never suppresses this one.",
      observable: "After a crash between delivering a retargeted tick's new command and its rewrite, the next runner finds no receipt (it looks for the row's old command), runs the handler again for the same instant and then fails on the receipt key, so the tick is redelivered on every lease and never advances."
    },
    {
      id: "deliver-runs-outside-transaction",
      file: "examples/third-party-cron/relay.ts",
      find: "deliver: (tick, delivery, handler) => deps.sql.withTransaction(deliver(deps, tick, delivery, handler)),",
      replace: "deliver: (tick, delivery, handler) => deliver(deps, tick, delivery, handler),",
      rules: ["N7","N8"],
      summary: "Let the handler own its transaction instead of nesting it in the relay's; deliver only records the receipt.",
      observable: "A storage failure on the receipt insert (or a crash after the handler) leaves the handler's writes committed with no receipt, so the redelivery of the same tick id runs the handler a second time."
    },
    {
      id: "write-ticks-ignores-insert-failure",
      file: "examples/third-party-cron/ticks.ts",
      find: "      DO NOTHING`\n  })",
      replace: "      DO NOTHING`.pipe(Effect.ignore)\n  })",
      rules: ["N4","N5"],
      summary: "Treat the tick insert as best effort so a busy database never fails the actor's turn over a timer.",
      observable: "When the tick insert hits a storage failure, runTurn and bootstrapTicks still succeed and commit the turn (and generation row) with no pending tick, so the entry silently never fires."
    },
    {
      id: "bootstrap-only-on-new-generation",
      file: "examples/third-party-cron/ticks.ts",
      find: "      yield* sql`INSERT INTO actor_generations (routing_key, tenant_id, actor_type, actor_id)\n        VALUES (${routingKeyOf(ref.tenant)}, ${ref.tenant}, ${ref.actor}, ${ref.id}) ON CONFLICT DO NOTHING`\n      yield* writeTicks",
      replace: "      const created = yield* sql`INSERT INTO actor_generations (routing_key, tenant_id, actor_type, actor_id)\n        VALUES (${routingKeyOf(ref.tenant)}, ${ref.tenant}, ${ref.actor}, ${ref.id}) ON CONFLICT DO NOTHING RETURNING actor_id`\n      if (created.length === 0) return\n      yield* writeTicks",
      rules: ["N5"],
      summary: "Only the runner that creates the singleton's generation row writes its ticks; later runners have nothing to bootstrap.",
      observable: "Once a singleton exists, bootstrapTicks at a later startup writes nothing: an entry added by a deploy (or one whose row was deleted) never gets a tick."
    },
    {
      id: "backoff-release-not-fenced",
      file: "examples/third-party-cron/relay.ts",
      find: "SET due_at_ms = ${nowMs + backoffMs} WHERE ${fenceOf(sql, tick)}`",
      replace: "SET due_at_ms = ${nowMs + backoffMs} WHERE intent_id = ${tick.intent_id}`",
      rules: ["N8","N7"],
      summary: "A release only postpones the row, so key it on the tick id alone rather than on the claim.",
      observable: "A runner that does not declare an entry and whose lease has passed pushes back a row another runner has since claimed: that runner's settling write then matches nothing and the row sits at the stale runner's backoff."
    },
    {
      id: "rewrite-before-delivery",
      file: "examples/third-party-cron/relay.ts",
      find: "    if (tick.command === entry.command) return { command: tick.command, payload: tick.payload }\n",
      replace: "    if (tick.command === entry.command) {\n      yield* rewrite(deps, tick, entry)\n      return { command: tick.command, payload: tick.payload }\n    }\n",
      rules: ["N7","N8"],
      summary: "Advance the row to its next tick before delivering, so a slow handler can never see the same tick claimed twice.",
      observable: "A crash or storage failure between settleUnfired and deliver loses that instant: the row already points at the next tick and the due command is never delivered (settleFired then changes nothing)."
    }
  ]
}
