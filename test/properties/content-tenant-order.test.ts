/**
 * K6 does not fix the order a sweep takes its tenants in (upstream's query has no ORDER BY; the shipped
 * store orders by id). Until 2026-12-04 the model assumed the order by id, and a store taking its
 * tenants in another order failed CNT-009 on sqlite and CNT-010, CNT-011 and CNT-012 on postgres: a
 * racer placed after the first tenant's reference scan lands elsewhere when another tenant goes first.
 * Now the model weighs every order (`sweepAlternatives`, `harness/Alternatives.ts`): such a store passes,
 * and a store that is wrong in every order still fails.
 */
import { describe, expect, it } from "vitest"
import { firstConsistent, MAX_ALTERNATIVES } from "../../harness/Alternatives.ts"
import type { Check } from "../../harness/ModelBased.ts"
import { DEFAULT_MODEL_CONFIG, sweepAlternatives } from "../../models/content/index.ts"
import { inTenantOrder } from "../../models/content/sweep.ts"
import { initialContentState } from "../../models/content/state.ts"
import { contentAllowedVariants } from "../allowed/content/variants.ts"

const check = (expected: number, actual: number): Check => ({ observable: "x", expected, actual, rules: ["K6"], why: "test" })

describe("a sweep's tenant order", () => {
  it("is any order: the store taking its tenants in reverse is an allowed variant (run by test/allowed/content/passes.test.ts)", () => {
    expect(contentAllowedVariants.map((variant) => variant.name)).toContain("tenants-reversed")
  })

  it("the model spells out every order of the registered tenants, by id first", () => {
    const state = { ...initialContentState(DEFAULT_MODEL_CONFIG), sweptAtMs: { t2: 0, t1: 0, t3: 0 } }
    const alternatives = sweepAlternatives(state, { kind: "sweep", force: true, atMs: 0 })
    expect(alternatives).toHaveLength(6)
    expect(alternatives[0]!.tenantOrder).toBeUndefined()
    expect(new Set(alternatives.slice(1).map((op) => op.tenantOrder!.join(","))).size).toBe(5)
    expect(sweepAlternatives({ ...state, sweptAtMs: { t1: 0 } }, { kind: "sweep", force: true, atMs: 0 })).toHaveLength(1)
    expect(inTenantOrder(["t1", "t2", "t3"], ["t3"])).toEqual(["t3", "t1", "t2"])
  })

  it("judges a step by the first alternative the observation agrees with, else by the canonical one", () => {
    const predicted: Array<number> = []
    const predict = (value: number) => {
      predicted.push(value)
      return [check(value, 2)]
    }
    expect(firstConsistent([1, 2, 3], predict, (checks) => checks)).toEqual([check(2, 2)])
    expect(predicted).toEqual([1, 2])
    expect(firstConsistent([1, 3], (value) => [check(value, 2)], (checks) => checks)).toEqual([check(1, 2)])
    expect(() => firstConsistent([], (value: number) => [check(value, 2)], (checks) => checks)).toThrow(/at least one/)
    expect(() => firstConsistent(Array.from({ length: MAX_ALTERNATIVES + 1 }, (_, index) => index), (value) => [check(value, 0)], (checks) => checks)).toThrow(/at most/)
  })
})
