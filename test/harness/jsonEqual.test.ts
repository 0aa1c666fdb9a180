/**
 * `jsonEqual` is an optimisation of `canonical(a) === canonical(b)`: it must give the same answer on
 * every value a check can hold, including the members `JSON.stringify` drops or rewrites (undefined,
 * functions, NaN, -0, toJSON, class instances, key order).
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { canonical, jsonEqual } from "../../harness/ModelBased.ts"

class Point {
  constructor(readonly x: number) {}
}

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, undefined, true, false, 0, -0, 1, NaN, Infinity, -Infinity, "", "a", "null"),
  fc.integer({ min: -3, max: 3 }),
  fc.string({ maxLength: 3 }),
  fc.constant(() => 1),
  fc.constant(new Date(0)),
  fc.constant(new Point(1)),
  fc.constant({ toJSON: () => "a" })
)

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "toJSON"), tie("value"), { maxKeys: 3 })
  )
}))

/** A value that serializes like `input` most of the time: keys reordered, dropped members added, -0 for 0. */
const lookalike = (input: unknown): unknown => {
  if (Array.isArray(input)) return input.map(lookalike)
  if (input !== null && typeof input === "object" && Object.getPrototypeOf(input) === Object.prototype) {
    const entries = Object.entries(input as Record<string, unknown>).reverse().map(([key, inner]) => [key, lookalike(inner)] as const)
    return Object.fromEntries([...entries, ["z", undefined]])
  }
  if (input === 0) return -0
  if (typeof input === "number" && Number.isNaN(input)) return null
  return input
}

describe("jsonEqual", () => {
  it("answers as canonical text comparison does, on unrelated and on look-alike values", () => {
    let equalSeen = 0
    fc.assert(
      fc.property(value, value, fc.boolean(), (a, other, alike) => {
        const b = alike ? lookalike(a) : other
        const expected = canonical(a) === canonical(b)
        if (expected) equalSeen++
        expect(jsonEqual(a, b)).toBe(expected)
        expect(jsonEqual(b, a)).toBe(expected)
      }),
      { numRuns: 2000, seed: 11 }
    )
    // Both answers were exercised many times.
    expect(equalSeen).toBeGreaterThan(200)
    expect(equalSeen).toBeLessThan(1900)
  })

  it("tells a member that is null from one that is absent or undefined", () => {
    expect(jsonEqual({ x: null }, { x: undefined })).toBe(false)
    expect(jsonEqual({ x: null }, { x: undefined, y: 1 })).toBe(false)
    expect(jsonEqual({ x: undefined }, {})).toBe(true)
    expect(jsonEqual([undefined], [null])).toBe(true)
    expect(jsonEqual({ a: 1, b: [2] }, { b: [2], a: 1 })).toBe(true)
  })
})
