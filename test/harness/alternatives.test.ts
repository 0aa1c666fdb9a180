/**
 * `harness/Alternatives.ts`: a step is judged by the first allowed choice the observation agrees
 * with, and a witness names every value the choices allowed; the orders it spells out for a model's
 * free choices are numbered lexicographically by position, 0 the given order and n! - 1 its reverse,
 * every order once.
 */
import { describe, expect, it } from "vitest"
import { everyOrder, firstConsistent, MAX_ALTERNATIVES, orderAt, orderCount } from "../../harness/Alternatives.ts"
import { makeAttributor } from "../../harness/Attribution.ts"
import { type Check, divergenceOf } from "../../harness/ModelBased.ts"
import { alarmRequirements } from "../../spec/alarms.ts"

const check = (expected: number, actual: number): Check => ({ observable: "x", expected, actual, rules: ["R3"], why: "test" })

describe("judging a step by its allowed choices", () => {
  it("judges a step by the first alternative the observation agrees with, else by the canonical one", () => {
    const predicted: Array<number> = []
    const judged = (value: number) => ({ checks: [check(value, 2)] })
    const predict = (value: number) => {
      predicted.push(value)
      return judged(value)
    }
    expect(firstConsistent([1, 2, 3], predict)).toEqual(judged(2))
    expect(predicted).toEqual([1, 2])
    expect(firstConsistent([1], judged)).toEqual(judged(1))
    expect(() => firstConsistent([], judged)).toThrow(/at least one/)
    expect(() => firstConsistent(Array.from({ length: MAX_ALTERNATIVES + 1 }, (_, index) => index), judged)).toThrow(/at most/)
  })

  it("tells the canonical mismatch what the other alternatives expected of its observable, once each, when none agrees", () => {
    const canonical = firstConsistent([1, 3, 4, 3], (value) => ({ checks: [check(value, 2)] }))
    expect(canonical.checks).toEqual([{ ...check(1, 2), alsoExpected: [3, 4] }])
    // An alternative that expected the observed value failed elsewhere: its value is not listed.
    const elsewhere = firstConsistent([1, 2], (value) => ({ checks: [check(value, 2), { ...check(value, 5), observable: "y" }] }))
    expect(elsewhere.checks[0]).toEqual(check(1, 2))
    const divergence = divergenceOf(canonical.checks[0]!, makeAttributor(alarmRequirements, "ALM-042"), 0, "a step")
    expect(divergence.alsoExpected).toEqual([3, 4])
    expect(divergence.explanation).toMatch(/was 2 but the model expected 1 \(or 3, or 4, by another choice the rules allow\), because test \(R3\)/)
  })
})

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
