/**
 * What an error says, for requirements that fix an error's words (a reference rule quoting them).
 *
 * An implementation may put the words in the error's own `message` or in the error it wraps (`cause`,
 * as upstream's `StorageOperationError` does), so the search follows the cause chain, a bounded number
 * of links deep, and compares case-insensitively.
 */

/** Links of a `cause` chain followed before giving up (a cycle or a very deep chain ends there). */
export const MAX_CAUSE_DEPTH = 8

const ownText = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value instanceof Error) return value.message
  if (typeof value === "object" && value !== null) {
    const message = (value as { readonly message?: unknown }).message
    return typeof message === "string" ? message : ""
  }
  return value === undefined || value === null ? "" : String(value)
}

/**
 * True when `error`, or an error it wraps through `cause`, says `words` (case-insensitive).
 *
 * @example
 * says(new StorageOperationError({ cause: new Error("cannot schedule detached work after their pass ends") }),
 *   "cannot schedule detached work") // true
 */
export const says = (error: unknown, words: string): boolean => {
  const wanted = words.toLowerCase()
  let current: unknown = error
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    if (ownText(current).toLowerCase().includes(wanted)) return true
    current = typeof current === "object" ? (current as { readonly cause?: unknown }).cause : undefined
  }
  return false
}

/**
 * Every distinct text along `error`'s cause chain, outermost first, joined by ": ", so a wrapper whose
 * own message is generic (`PgConnection: Query failed`) still shows the database's words.
 *
 * @example causeChainText(new Error("Query failed", { cause: new Error("column is of type boolean") })) // "Query failed: column is of type boolean"
 */
export const causeChainText = (error: unknown): string => {
  const texts: Array<string> = []
  let current: unknown = error
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    const text = ownText(current).trim()
    if (text !== "" && !texts.some((earlier) => earlier.includes(text))) texts.push(text)
    current = typeof current === "object" ? (current as { readonly cause?: unknown }).cause : undefined
  }
  return texts.length === 0 ? String(error) : texts.join(": ")
}
