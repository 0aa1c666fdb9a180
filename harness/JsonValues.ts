/**
 * Where a value handed across a JSON boundary (a journal record, a stored payload) is not a JSON value:
 * `undefined` (also as an object field), functions, symbols, bigints, non-finite numbers and
 * non-plain objects (`Date`, `Map`, class instances). A JSON encoder drops or rewrites each of them
 * silently, so the value read back differs from the value written, and two writers with equal intent
 * can store different bytes.
 */

/** Most paths one walk reports, and deepest nesting it follows. */
export const MAX_NON_JSON_PATHS = 16
const MAX_DEPTH = 64

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * The paths (`$.payload.effect.output`) at which `value` is not a JSON value, at most
 * `MAX_NON_JSON_PATHS`; empty for a JSON value.
 *
 * @example nonJsonPaths({ a: 1, b: undefined }) // ["$.b"]
 */
export const nonJsonPaths = (value: unknown, path = "$"): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (current: unknown, at: string, depth: number): void => {
    if (found.length >= MAX_NON_JSON_PATHS) return
    if (current === null || typeof current === "string" || typeof current === "boolean") return
    if (typeof current === "number") {
      if (!Number.isFinite(current)) found.push(at)
      return
    }
    if (typeof current !== "object" || depth >= MAX_DEPTH) {
      found.push(at)
      return
    }
    if (Array.isArray(current)) {
      current.forEach((item, index) => walk(item, `${at}[${index}]`, depth + 1))
      return
    }
    if (!isPlainObject(current)) {
      found.push(at)
      return
    }
    for (const [key, field] of Object.entries(current)) walk(field, `${at}.${key}`, depth + 1)
  }
  walk(value, path, 0)
  return found
}
