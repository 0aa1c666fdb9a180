/**
 * K6 does not fix the order a sweep takes its tenants in (upstream's query has no ORDER BY; the shipped
 * store orders by id). Until 2026-12-04 the model assumed the order by id, and a store taking its
 * tenants in another order failed CNT-009 on sqlite and CNT-010, CNT-011 and CNT-012 on postgres: a
 * racer placed after the first tenant's reference scan lands elsewhere when another tenant goes first.
 * Now the model weighs every order (`sweepAlternatives`, `harness/Alternatives.ts`): such a store passes,
 * and a store that is wrong in every order still fails.
 */
import { describe, expect, it } from "vitest"
import { DEFAULT_MODEL_CONFIG, sweepAlternatives } from "../../models/content/index.ts"
import { inTenantOrder } from "../../models/content/sweep.ts"
import { initialContentState } from "../../models/content/state.ts"
import { contentAllowedVariants } from "../allowed/content/variants.ts"

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
})
