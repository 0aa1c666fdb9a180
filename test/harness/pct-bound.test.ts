import { describe, expect, it } from "vitest"
import { describeGuarantee, interleavingGuarantee, isInterleavingShape, pctHitProbability, pctMissProbability, pctSituation } from "../../harness/PctBound.ts"

describe("PCT bound maths", () => {
  it("p = 1/(n·k^(d−1))", () => {
    expect(pctHitProbability({ operations: 2, steps: 4 }, 1)).toBe(0.5)
    expect(pctHitProbability({ operations: 2, steps: 4 }, 2)).toBe(0.125)
    expect(pctHitProbability({ operations: 3, steps: 10 }, 3)).toBeCloseTo(1 / 300, 15)
    expect(() => pctHitProbability({ operations: 2, steps: 4 }, 0)).toThrow(RangeError)
    expect(() => pctHitProbability({ operations: 0, steps: 4 }, 1)).toThrow(RangeError)
  })

  it("miss = (1 − p)^runs; no runs never claim anything", () => {
    expect(pctMissProbability(0.125, 0)).toBe(1)
    expect(pctMissProbability(0.5, 3)).toBe(0.125)
    expect(pctMissProbability(1, 1)).toBe(0)
    expect(() => pctMissProbability(1.5, 1)).toThrow(RangeError)
    expect(() => pctMissProbability(0.5, -1)).toThrow(RangeError)
    expect(() => pctMissProbability(0.5, 1.5)).toThrow(RangeError)
  })

  it("states each depth's bound over the PCT runs of that depth only", () => {
    const guarantee = interleavingGuarantee({ operations: 2, steps: 4, maxDepth: 3 }, { [pctSituation(1)]: 3, [pctSituation(2)]: 10, other: 99 })
    expect(guarantee.bounds).toEqual([
      { depth: 1, pctRuns: 3, perRunProbability: 0.5, missProbability: 0.125 },
      { depth: 2, pctRuns: 10, perRunProbability: 0.125, missProbability: 0.263076 },
      { depth: 3, pctRuns: 0, perRunProbability: 0.03125, missProbability: 1 }
    ])
    expect(describeGuarantee(guarantee)).toBe("n=2 k=4; d=1: p ≥ 1/2 (50.0%) per PCT run; 3 runs; miss ≤ 12.5%; d=2: p ≥ 1/8 (12.5%) per PCT run; 10 runs; miss ≤ 26.3%; d=3: p ≥ 1/32 (3.13%) per PCT run; 0 runs; miss ≤ 100%")
  })

  it("refuses shapes outside n, k ≥ 1 and 1 ≤ d ≤ 3", () => {
    expect(isInterleavingShape({ operations: 2, steps: 4, maxDepth: 3 })).toBe(true)
    expect(isInterleavingShape({ operations: 2, steps: 4, maxDepth: 4 })).toBe(false)
    expect(isInterleavingShape({ operations: 2, steps: 0, maxDepth: 1 })).toBe(false)
    expect(() => interleavingGuarantee({ operations: 1.5, steps: 4, maxDepth: 1 }, undefined)).toThrow(RangeError)
  })
})
