/**
 * A COMMIT answered with ROLLBACK treated as success (P5): the commit only sends COMMIT and ignores
 * the server's answer, so a transaction that had aborted reports success although nothing committed.
 *
 * Breaks POL-005.
 */
import { Effect } from "effect"
import { knownBadPool } from "./kit.ts"

/** The unchecked-commit known-bad. */
export const rollbackCommitSuccess = knownBadPool({
  name: "rollback-commit-success",
  bug: "P5: COMMIT answered with ROLLBACK is reported as a successful commit",
  breaks: ["POL-005"],
  pieces: { commit: (connection) => Effect.asVoid(connection.executeRaw("COMMIT", [])) }
})
