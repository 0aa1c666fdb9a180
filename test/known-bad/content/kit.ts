/**
 * The known-bad kit bound to the content subject: the shipped store's pieces
 * (`subjects/content/pieces.ts`) and `contentImplementation`. Each known-bad content store is a
 * declaration passed to `knownBadContent`: exactly one piece swapped, the bug in one line, and the
 * requirements it breaks (read from `shared/reference/content.md` and `spec/content.ts`).
 */
import { buildKnownBad, type BuiltKnownBad, type KnownBad, type PieceKit } from "../../../harness/knownBad.ts"
import type { ContentImplementation } from "../../../subjects/content/api.ts"
import { contentImplementation } from "../../../subjects/content/make.ts"
import { type ContentPieces, defaultContentPieces } from "../../../subjects/content/pieces.ts"

/** How a content implementation is built from pieces. */
export const contentPieceKit: PieceKit<ContentPieces, ContentImplementation> = {
  defaults: defaultContentPieces,
  build: (name, pieces) => contentImplementation(name, pieces)
}

/** One built known-bad content implementation. */
export type KnownBadContent = BuiltKnownBad<ContentPieces, ContentImplementation>

/** Builds a known-bad content implementation from its declaration (throws unless exactly one piece is swapped). */
export const knownBadContent = (declaration: KnownBad<ContentPieces>): KnownBadContent => buildKnownBad(contentPieceKit, declaration)
