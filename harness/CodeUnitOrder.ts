/**
 * One total order on text for everything the harness sorts: by UTF-16 code unit, as JavaScript's `<`
 * compares strings (never locale order, which differs between machines and would change report bytes).
 */

/** Compares two strings by UTF-16 code unit: negative, zero or positive, for `Array.prototype.sort`. */
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Compares two `[key, value]` entries by their keys' code units (for `Object.entries(...).sort`). */
export const compareEntryKeys = <Value>([a]: readonly [string, Value], [b]: readonly [string, Value]): number => compareCodeUnits(a, b)

/** The object with the same members, its keys in code-unit order (for JSON text that compares as text). */
export const withSortedKeys = <Value>(record: Readonly<Record<string, Value>>): Record<string, Value> =>
  Object.fromEntries(Object.entries(record).sort(compareEntryKeys))

/**
 * JSON text with every object's keys in code-unit order, so equal values compare equal as text
 * (`undefined`, a function or a symbol at the top level is `"null"`).
 */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? withSortedKeys(inner as Record<string, unknown>)
      : inner) ?? "null"
