/**
 * A cron bug only a failed statement shows (`statementFails`, drawn by `cron/faults` through
 * `CronScenario.failedStatements`): a claim that treats a failed claim statement as an empty poll. On
 * Postgres the failed statement aborted the transaction and its COMMIT rolls back without an error, so
 * the relay is told "nothing due" while the claim failed: the caller never sees the storage error, and
 * a relay loop that backs off on an empty poll leaves due ticks waiting.
 */
import { Effect } from "effect"
import { defaultCronPieces } from "../../../subjects/cron/pieces.ts"
import { knownBadCron } from "./kit.ts"

/** A failed claim statement swallowed as "nothing due". */
export const claimSwallowsStatementFailure = knownBadCron({
  name: "claim-swallows-statement-failure",
  bug: "a failed claim statement is swallowed as an empty poll, so the relay is told nothing is due while its claim failed",
  breaks: ["CRN-006"],
  pieces: {
    claimDue: (sql, request) => defaultCronPieces.claimDue(sql, request).pipe(Effect.catchTag("SqlError", () => Effect.succeed([])))
  }
})
