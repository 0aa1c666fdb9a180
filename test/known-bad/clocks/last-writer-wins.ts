/**
 * Own: deferred completion is an upsert (last writer wins); the repeat's record then conflicts with the
 * first one and the repeat fails instead of answering Existing.
 * Breaks C5 (first writer wins): CLK-006; IG2: CLK-017.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** Last-writer-wins known-bad variant. */
export const lastWriterWins = knownBadClock({
  name: "last-writer-wins",
  bug: "deferredDone overwrites an existing completion",
  breaks: ["CLK-006", "CLK-017", "CLK-012", "CLK-011"],
  pieces: {
    completeDeferredRow: (store, row) =>
      Effect.flatMap(store.deferred(row), (before) =>
        Effect.flatMap(store.upsertDeferred(row), () =>
          Effect.map(store.deferred(row), (stored) => ({ _tag: before === undefined ? "Created" as const : "Existing" as const, row: stored ?? row }))))
  }
})
