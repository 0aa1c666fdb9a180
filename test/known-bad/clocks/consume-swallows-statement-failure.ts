/**
 * Own: the consumption mark is treated as best effort. A failed `consumeIfFirst` is swallowed as "not
 * the first read", so `deferredResult` still answers the value and emits no consumed record. On
 * Postgres the failed statement aborted the transaction: its COMMIT rolls back without an error, and
 * the caller is told the read succeeded while the read's transaction failed (C4: the step's rows and
 * records commit together or not at all; C7: the first read records its consumption).
 * Caught only by the failed-statement fault (`statementFails`).
 * Breaks C7: CLK-009; C4: CLK-005.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** Consume-swallows-statement-failure known-bad variant. */
export const consumeSwallowsStatementFailure = knownBadClock({
  name: "consume-swallows-statement-failure",
  bug: "a failed consumption mark is swallowed as 'not the first read', so the read answers while its transaction rolled back",
  breaks: ["CLK-009", "CLK-005"],
  pieces: {
    consume: (store, address, consumedAtMs) => store.consumeIfFirst(address, consumedAtMs).pipe(Effect.catchTag("SqlError", () => Effect.succeed(false)))
  }
})
