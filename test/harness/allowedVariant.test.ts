/**
 * The allowed-variant kit: a piece variant swaps exactly one shipped piece and is named
 * `allowed/<name>`; a variant must state its freedom; a wrapper must carry the name it is given; and
 * `rejections` names every verdict that is neither pass nor not-applicable, by adapter.
 */
import { describe, expect, it } from "vitest"
import { buildAllowedVariant, rejections, wrappedAllowedVariant } from "../../harness/allowedVariant.ts"
import type { PieceKit } from "../../harness/knownBad.ts"
import type { ConformanceReport, RequirementResult } from "../../harness/RunResult.ts"

interface Pieces {
  readonly order: (values: ReadonlyArray<number>) => ReadonlyArray<number>
  readonly write: (value: number) => number
}

const defaults: Pieces = { order: (values) => [...values].sort((a, b) => a - b), write: (value) => value }
const kit: PieceKit<Pieces, { name: string; pieces: Pieces }> = { defaults, build: (name, pieces) => ({ name, pieces }) }
const reversed = (values: ReadonlyArray<number>) => [...values].sort((a, b) => b - a)

const requirement = (requirementId: string, verdict: RequirementResult["verdict"]): RequirementResult => ({
  requirementId,
  subject: "alarms",
  title: requirementId,
  verdict,
  reason: `${requirementId} is ${verdict}`,
  propertyIds: [],
  coveredRuns: 0
})

const reportOf = (adapters: Record<string, ReadonlyArray<RequirementResult>>): ConformanceReport =>
  ({ adapters: Object.entries(adapters).map(([name, requirements]) => ({ fingerprint: { name }, requirements })) }) as unknown as ConformanceReport

describe("allowed variants", () => {
  it("swap exactly one piece, keep the others and are named allowed/<name>", () => {
    const variant = buildAllowedVariant(kit, { name: "reversed-order", freedom: "R1 fixes no order", pieces: { order: reversed } })
    expect(variant.implementation.name).toBe("allowed/reversed-order")
    expect(variant.implementation.pieces.order([1, 3, 2])).toEqual([3, 2, 1])
    expect(variant.implementation.pieces.write).toBe(defaults.write)
    expect(() => buildAllowedVariant(kit, { name: "two", freedom: "R1", pieces: { order: reversed, write: (value) => value + 0 } })).toThrow(/swaps 2 pieces/)
    expect(() => buildAllowedVariant(kit, { name: "same", freedom: "R1", pieces: { order: defaults.order } })).toThrow(/shipped piece itself/)
  })

  it("state their freedom and a well-formed name", () => {
    expect(() => buildAllowedVariant(kit, { name: "x", freedom: "  ", pieces: { order: reversed } })).toThrow(/which choice the reference leaves open/)
    expect(() => buildAllowedVariant(kit, { name: "Not Allowed", freedom: "R1", pieces: { order: reversed } })).toThrow(/lowercase words/)
  })

  it("built by a wrapper carry the name they are given", () => {
    const variant = wrappedAllowedVariant({ name: "wrapped", freedom: "R2 fixes no order" }, (name) => ({ name }))
    expect(variant.implementation.name).toBe("allowed/wrapped")
    expect(() => wrappedAllowedVariant({ name: "wrapped", freedom: "R2" }, () => ({ name: "shipped" }))).toThrow(/must be named allowed\/wrapped, not shipped/)
  })

  it("are rejected by every verdict but pass and not-applicable, named by adapter", () => {
    const report = reportOf({
      sqlite: [requirement("ALM-001", "pass"), requirement("ALM-002", "not-applicable"), requirement("ALM-003", "fail")],
      pglite: [requirement("ALM-001", "unknown"), requirement("ALM-002", "error")]
    })
    expect(rejections(report)).toEqual([
      { adapter: "sqlite", requirementId: "ALM-003", verdict: "fail", reason: "ALM-003 is fail" },
      { adapter: "pglite", requirementId: "ALM-001", verdict: "unknown", reason: "ALM-001 is unknown" },
      { adapter: "pglite", requirementId: "ALM-002", verdict: "error", reason: "ALM-002 is error" }
    ])
    expect(rejections(reportOf({ sqlite: [requirement("ALM-001", "pass")] }))).toEqual([])
  })
})
