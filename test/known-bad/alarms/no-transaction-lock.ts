/**
 * No transaction lock: scheduler transactions on independent connections run truly concurrently, so
 * one transaction reconciles the platform alarm from rows that miss the other's uncommitted writes, and
 * a second scheduler's transaction never waits for the first. A Durable Object runs one transaction at
 * a time; only an engine with independent connections (Postgres) can show the difference, so the bug is
 * invisible on SQLite, PGlite and a Durable Object (their `transactionLockSql` is null anyway).
 *
 * Breaks ALM-053 (scheduler transactions on independent connections serialize: R4, R6, and
 * `subjects/alarms/README.md`: "On Postgres every scheduler transaction first takes ...").
 */
import { Effect } from "effect"
import { knownBadAlarm } from "./kit.ts"

/** No-transaction-lock known-bad variant. */
export const noTransactionLock = knownBadAlarm({
  name: "no-transaction-lock",
  bug: "scheduler transactions take no transaction lock, so on Postgres two schedulers' transactions interleave instead of serializing",
  breaks: ["ALM-053"],
  pieces: {
    transactionLock: () => Effect.void
  }
})
