/**
 * `toJson`: a value as JSON data, exactly as `JSON.parse(JSON.stringify(value ?? null))` gives it, but
 * copied directly when the value is plain data (plain objects, arrays, strings, finite numbers,
 * booleans, null), without building and parsing its text.
 *
 * Every subject turns model outcomes, statuses and results into JSON at each step, so this sits on the
 * hot path of every scenario: the text round trip was the harness's largest own cost in the alarms
 * throughput bench (`npm run bench`, section 2). Anything not plain data (a class instance, a `toJSON`
 * method, a boxed primitive, a `__proto__` key, a bigint, nesting deeper than `MAX_DIRECT_DEPTH`) takes
 * the round trip instead, so the result, and every error thrown, are the round trip's own.
 */
import type { Json } from "./Property.ts"

/** Nesting copied directly; deeper values (or cycles) take the text round trip, which reports a cycle as `JSON.stringify` does. */
const MAX_DIRECT_DEPTH = 64

/** Thrown inside `directCopy` to hand the whole value to the round trip. */
const NOT_PLAIN: unique symbol = Symbol("not plain data")

/** What `JSON.stringify` drops from an object and writes as `null` in an array. */
const isSkipped = (value: unknown): boolean => value === undefined || typeof value === "function" || typeof value === "symbol"

const directCopy = (value: unknown, depth: number): Json => {
  if (value === null) return null
  switch (typeof value) {
    case "string":
    case "boolean":
      return value
    case "number":
      // JSON writes -0 as 0 and every non-finite number as null.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null
    case "object":
      if (depth >= MAX_DIRECT_DEPTH) throw NOT_PLAIN
      return Array.isArray(value) ? directArray(value, depth) : directObject(value, depth)
    default:
      throw NOT_PLAIN
  }
}

const directArray = (array: ReadonlyArray<unknown>, depth: number): Json => {
  if (Object.getPrototypeOf(array) !== Array.prototype || "toJSON" in array) throw NOT_PLAIN
  const copy: Array<Json> = new Array(array.length)
  for (let index = 0; index < array.length; index++) {
    const element = array[index]
    copy[index] = isSkipped(element) ? null : directCopy(element, depth + 1)
  }
  return copy
}

const directObject = (object: object, depth: number): Json => {
  const prototype = Object.getPrototypeOf(object)
  if ((prototype !== Object.prototype && prototype !== null) || typeof (object as { readonly toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN
  const copy: Record<string, Json> = {}
  for (const key of Object.keys(object)) {
    const property = (object as Record<string, unknown>)[key]
    if (isSkipped(property)) continue
    // An own `__proto__` key: assigning it would set the copy's prototype.
    if (key === "__proto__") throw NOT_PLAIN
    copy[key] = directCopy(property, depth + 1)
  }
  return copy
}

/**
 * `value` as JSON data: `JSON.parse(JSON.stringify(value ?? null))`, copied directly when it is plain data.
 *
 * @example toJson({ a: 1, b: undefined, c: [undefined] }) // { a: 1, c: [null] }
 */
export const toJson = (value: unknown): Json => {
  try {
    return directCopy(value ?? null, 0)
  } catch (error) {
    if (error !== NOT_PLAIN) throw error
    return JSON.parse(JSON.stringify(value ?? null)) as Json
  }
}
