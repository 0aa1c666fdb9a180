/**
 * The orders `harness/Alternatives.ts` spells out for a model's free choices: numbered
 * lexicographically by position, 0 the given order and n! - 1 its reverse, every order once.
 */
import { describe, expect, it } from "vitest"
import { everyOrder, MAX_ALTERNATIVES, orderAt, orderCount } from "../../harness/Alternatives.ts"

describe("orders of a model's free choice", () => {
  it("are numbered lexicographically by position, the given order first and its reverse last", () => {
    expect(everyOrder(["a", "b", "c"]).map((order) => order.join(""))).toEqual(["abc", "acb", "bac", "bca", "cab", "cba"])
    expect(orderAt([1, 2, 3, 4], 0)).toEqual([1, 2, 3, 4])
    expect(orderAt([1, 2, 3, 4], 23)).toEqual([4, 3, 2, 1])
    expect(everyOrder([])).toEqual([[]])
  })

  it("spell out every order of up to four items once, and refuse more or an index past them", () => {
    expect(new Set(everyOrder([1, 2, 3, 4]).map((order) => order.join())).size).toBe(24)
    expect([0, 1, 2, 3, 4, 5].map(orderCount)).toEqual([1, 1, 2, 6, 24, MAX_ALTERNATIVES + 1])
    expect(() => everyOrder([1, 2, 3, 4, 5])).toThrow(/more than 24 orders/)
    expect(() => orderAt([1, 2], 2)).toThrow(/not an order of 2 items/)
    expect(() => orderAt([1, 2], 0.5)).toThrow(/not an order/)
    expect(orderAt([1, 2, 3, 4, 5], 23)).toEqual([1, 5, 4, 3, 2])
  })
})
