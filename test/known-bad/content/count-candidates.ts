/**
 * Own: the sweep counts the candidates it tried to delete, not the rows the delete's re-check let go,
 * so a pass whose re-check refused a raised horizon reports a deletion that did not happen.
 *
 * Breaks the sweep's count (CNT-007).
 */
import { Effect } from "effect"
import { defaultContentPieces } from "../../../subjects/content/pieces.ts"
import { knownBadContent } from "./kit.ts"

/** Counts targets, not deletions. */
export const countCandidates = knownBadContent({
  name: "count-candidates",
  bug: "the sweep returns the number of unreferenced candidates, not of rows deleted",
  breaks: ["CNT-007"],
  pieces: {
    deleteUnreferenced: (statements, tenant, hashes, recheckBeforeMs) =>
      Effect.as(defaultContentPieces.deleteUnreferenced(statements, tenant, hashes, recheckBeforeMs), hashes.length)
  }
})
