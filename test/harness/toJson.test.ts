/**
 * `toJson` copies plain data directly; it must give exactly what the JSON text round trip gives, for
 * every value (key order, -0, non-finite numbers, dropped and nulled entries), and throw what it throws.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toJson } from "../../harness/ToJson.ts"

type Outcome = { readonly ok: true; readonly text: string; readonly negativeZeros: number; readonly value: unknown } | { readonly ok: false; readonly error: string }

/** How many -0 a value holds (JSON has none, so neither may a copy). */
const negativeZerosIn = (value: unknown): number =>
  Object.is(value, -0) ? 1 : typeof value === "object" && value !== null ? Object.values(value).reduce((sum: number, inner) => sum + negativeZerosIn(inner), 0) : 0

const outcomeOf = (copy: () => unknown): Outcome => {
  try {
    const value = copy()
    return { ok: true, text: JSON.stringify(value), negativeZeros: negativeZerosIn(value), value }
  } catch (error) {
    return { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` }
  }
}

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null))

const expectSameAsRoundTrip = (value: unknown): void => {
  const direct = outcomeOf(() => toJson(value))
  const text = outcomeOf(() => roundTrip(value))
  expect(direct.ok).toBe(text.ok)
  if (direct.ok && text.ok) {
    expect(direct.text).toBe(text.text)
    expect(direct.negativeZeros).toBe(0)
    expect(direct.value).toStrictEqual(text.value)
  } else {
    expect(direct).toEqual(text)
  }
}

const EVERY_KIND = fc.anything({
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true
})

describe("toJson", () => {
  it("gives what the JSON text round trip gives, for any value fast-check draws", () => {
    fc.assert(fc.property(EVERY_KIND, (value) => expectSameAsRoundTrip(value)), { numRuns: 2_000, seed: 20261207 })
  })

  it("gives what the round trip gives for plain data, the values the harness copies at every step", () => {
    const plain = fc.jsonValue({ maxDepth: 5 })
    fc.assert(fc.property(plain, fc.constantFrom(undefined, () => 1, Symbol("s"), -0, Number.NaN, Number.POSITIVE_INFINITY), (value, odd) => {
      expectSameAsRoundTrip(value)
      expectSameAsRoundTrip({ value, odd, list: [odd, value] })
    }), { numRuns: 1_000, seed: 20261207 })
  })

  it.each([
    ["undefined at the top", undefined],
    ["-0 inside", { zero: -0, list: [-0] }],
    ["non-finite numbers", { nan: Number.NaN, list: [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] }],
    ["a sparse array", [1, , 3]],
    ["an own toJSON", { toJSON: () => ({ replaced: true }) }],
    ["a toJSON that is not a function", { toJSON: 5, kept: true }],
    ["a class instance", new (class Point { x = 1 })()],
    ["a Date", { at: new Date(0) }],
    ["a Map", { map: new Map([["a", 1]]) }],
    ["a Uint8Array", { bytes: new Uint8Array([1, 2]) }],
    ["a null prototype", Object.assign(Object.create(null) as object, { a: 1 })],
    ["an own __proto__ key", JSON.parse("{\"__proto__\": {\"a\": 1}, \"b\": 2}") as unknown],
    ["integer-like keys after others", { b: 1, 2: "two", a: 3, 1: "one" }],
    ["an array subclass", Object.assign(new (class Listed extends Array<number> {})(), [1])],
    ["nesting deeper than the direct copy goes", Array.from({ length: 200 }).reduce((inner: unknown) => ({ inner }), 1)]
  ])("gives what the round trip gives for %s", (_, value) => expectSameAsRoundTrip(value))

  it("throws what the round trip throws: a bigint, a cycle, a function or symbol at the top", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    for (const value of [{ big: 1n }, cyclic, () => 1, Symbol("top")]) {
      const direct = outcomeOf(() => toJson(value))
      expect(direct.ok).toBe(false)
      expectSameAsRoundTrip(value)
    }
  })

  it("returns a fresh copy: changing it leaves the original alone", () => {
    const original = { list: [{ a: 1 }] }
    const copy = toJson(original) as { list: Array<{ a: number }> }
    copy.list[0]!.a = 2
    expect(original.list[0]!.a).toBe(1)
  })
})
