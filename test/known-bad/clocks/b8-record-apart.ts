/**
 * B8: a completion row and its journal record committed in separate transactions; a crash between them
 * left a row the journal could not explain.
 * Breaks C4: CLK-005; IG4 (rows = fold of the journal): CLK-019.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** B8 known-bad variant. */
export const b8RecordApart = knownBadClock({
  name: "b8-record-apart",
  bug: "B8: the completion commits first; its record (and the fire's CAS) follow in their own transaction",
  breaks: ["CLK-005", "CLK-019"],
  pieces: {
    completionTransaction: (runtime, steps) =>
      Effect.flatMap(runtime.sql.withTransaction(steps.state), (admission) => Effect.as(steps.records(admission), admission))
  }
})
