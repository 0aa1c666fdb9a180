/**
 * `nonJsonPaths` names every part of a value a JSON encoder would drop or rewrite, and nothing of a
 * JSON value; its walk is bounded.
 */
import { describe, expect, it } from "vitest"
import { MAX_NON_JSON_PATHS, nonJsonPaths } from "../../harness/JsonValues.ts"

describe("nonJsonPaths", () => {
  it("finds nothing in a JSON value", () => {
    expect(nonJsonPaths({ a: [1, "x", null, true, { b: -0.5 }], c: {} })).toEqual([])
    expect(nonJsonPaths(Object.assign(Object.create(null), { a: 1 }))).toEqual([])
  })

  it("names undefined fields, non-finite numbers, functions, bigints and non-plain objects by path", () => {
    const value = { a: undefined, b: [1, Number.NaN], c: { d: () => 1, e: 1n }, f: new Date(0), g: new Map() }
    expect(nonJsonPaths(value, "$.payload")).toEqual(["$.payload.a", "$.payload.b[1]", "$.payload.c.d", "$.payload.c.e", "$.payload.f", "$.payload.g"])
    expect(nonJsonPaths(undefined)).toEqual(["$"])
  })

  it("reports at most MAX_NON_JSON_PATHS paths", () => {
    expect(nonJsonPaths(Array.from({ length: 100 }, () => undefined))).toHaveLength(MAX_NON_JSON_PATHS)
  })
})
