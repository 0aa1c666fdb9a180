/**
 * Retry after a statement was sent (P7): the retry helper treats every `SqlError` as a refusal, so a
 * statement that failed on the server, or a transaction whose COMMIT was answered with ROLLBACK, is
 * sent again.
 *
 * Breaks POL-012 (no retry after a statement reached the server) and POL-007 (only refusals are retried).
 */
import { SqlError } from "effect/sql/SqlError"
import { knownBadPool } from "./kit.ts"

/** The retry-after-statement known-bad. */
export const retryAfterStatement = knownBadPool({
  name: "retry-after-statement",
  bug: "P7: every SqlError counts as a pool refusal, so failed statements and unknown commits are retried",
  breaks: ["POL-012", "POL-007"],
  pieces: { isPoolRefusal: (cause) => cause instanceof SqlError }
})
