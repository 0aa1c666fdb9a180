/**
 * The shipped `content` implementation: the store skeleton with the correct pieces.
 *
 * @example
 * ```ts
 * const store = yield* shippedContent.make({ sql: db.sql, dialect: "sqlite", settings: { grantKey: "k" } })
 * ```
 */
import type { ContentImplementation } from "./api.ts"
import { contentImplementation } from "./make.ts"
import { defaultContentPieces } from "./pieces.ts"

/** Name of the shipped implementation in reports. */
export const SHIPPED_CONTENT_NAME = "effect-sql-content"

/** The shipped implementation (effect/sql, every dialect). */
export const shippedContent: ContentImplementation = contentImplementation(SHIPPED_CONTENT_NAME, defaultContentPieces)

export * from "./api.ts"
export { CONTENT_HOOK_POINTS, contentImplementation, makeContentStore, sha256Hex } from "./make.ts"
export { defaultContentPieces } from "./pieces.ts"
export type { ContentPieces } from "./pieces.ts"
