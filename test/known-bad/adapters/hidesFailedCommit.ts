/**
 * Known-bad: clients that hide a failed COMMIT. Must fail ADP-012.
 *
 * - Over Postgres: a client that sends a plain COMMIT and never looks at the answer. Postgres answers
 *   the COMMIT of a transaction whose statement failed (the error was caught) with the command tag
 *   ROLLBACK, not an error, so the caller is told "committed" while nothing was kept.
 * - Over SQLite: a client that does not roll back after a failed COMMIT (a deferred foreign key).
 *   SQLite keeps the transaction open, so the caller is told "failed" while the connection still
 *   shows, and later commits, the writes.
 */
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { wrapAdapter } from "./wrapAdapter.ts"

/** Wraps `base` with a client that does not check or clean up after COMMIT. */
export const hidesFailedCommit = (base: StorageAdapter): StorageAdapter =>
  wrapAdapter(base, `${base.name}-hides-failed-commit`, { skipCommitFailureCleanup: true })
