/**
 * Known-bad: an adapter that declares savepoints but runs a nested `withTransaction` flat inside the
 * outer one (no SAVEPOINT at all), so a failed nested transaction keeps its writes. Must fail ADP-011.
 */
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { wrapAdapter } from "./wrapAdapter.ts"

/** Wraps `base` so nested transactions issue no savepoint statements. */
export const flatNesting = (base: StorageAdapter): StorageAdapter =>
  wrapAdapter(base, `${base.name}-flat-nesting`, { savepointSql: "SELECT 1" })
