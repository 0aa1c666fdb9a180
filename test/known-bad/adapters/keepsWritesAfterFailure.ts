/**
 * Known-bad: a transaction that keeps its writes after a failure (it sends COMMIT where it should send
 * ROLLBACK). Must fail ADP-001.
 */
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { wrapAdapter } from "./wrapAdapter.ts"

/** Wraps `base` so a failed top-level transaction commits instead of rolling back. */
export const keepsWritesAfterFailure = (base: StorageAdapter): StorageAdapter =>
  wrapAdapter(base, `${base.name}-keeps-writes-after-failure`, { rollback: "COMMIT" })
