/**
 * Known-bad: an adapter whose `open()` hands every run the same database (tables and rows of earlier
 * runs included), as a vendor adapter that forgets to reset between runs would. Must fail ADP-014.
 */
import { Effect, Exit, Scope } from "effect"
import type { IsolatedDatabase, StorageAdapter } from "../../../adapters/contract.ts"

/** Wraps `base` so all opens share one database; `close` releases it (call it when the test ends). */
export const reusesDatabase = (base: StorageAdapter): { readonly adapter: StorageAdapter; readonly close: Effect.Effect<void> } => {
  const scope = Scope.makeUnsafe()
  let shared: IsolatedDatabase | undefined
  const adapter: StorageAdapter = {
    ...base,
    name: `${base.name}-reuses-database`,
    open: (options) =>
      shared !== undefined
        ? Effect.succeed(shared)
        : Effect.tap(Scope.provide(base.open(options), scope), (database) => Effect.sync(() => {
          shared = database
        }))
  }
  return { adapter, close: Scope.close(scope, Exit.void) }
}
