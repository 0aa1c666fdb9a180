/**
 * The known-bad pool declarations are well formed and pure: each swaps exactly one piece of the
 * shipped pool (every other piece is the shipped one itself), declares the requirements its bug
 * breaks (IDs of the pool catalog) and states the bug in one line citing its rule.
 */
import { describe, expect, it } from "vitest"
import { purityProblems } from "../../../harness/knownBad.ts"
import { poolRequirements } from "../../../spec/pool.ts"
import { defaultPoolPieces } from "../../../subjects/pool/pieces.ts"
import { knownBadPools } from "./index.ts"

const catalogIds = new Set(poolRequirements.map((requirement) => requirement.id))

describe("known-bad pool declarations", () => {
  it("have unique names and implementation names known-bad/<name>", () => {
    const names = knownBadPools.map((bad) => bad.name)
    expect(new Set(names).size).toBe(names.length)
    for (const bad of knownBadPools) expect(bad.implementation.name).toBe(`known-bad/${bad.name}`)
  })

  it("each swaps exactly one piece and keeps every other shipped piece", () => {
    for (const bad of knownBadPools) {
      expect(purityProblems(defaultPoolPieces, bad.pieces, bad.allPieces), bad.name).toEqual([])
      expect(Object.keys(bad.pieces), bad.name).toEqual([bad.swappedPiece])
    }
  })

  it("each declares catalog requirements and states the bug in one line citing its P rule", () => {
    for (const bad of knownBadPools) {
      expect(bad.breaks.length, bad.name).toBeGreaterThan(0)
      expect(bad.breaks.filter((id) => !catalogIds.has(id)), bad.name).toEqual([])
      expect(bad.bug, bad.name).not.toContain("\n")
      expect(bad.bug, bad.name).toMatch(/^P\d(\/P\d)?: /)
    }
  })

  it("covers the five bugs the issue names and at least two of our own", () => {
    const pieces = knownBadPools.map((bad) => bad.swappedPiece)
    // Two of the (free count, slot lost at the hand-over), our uninterruptible wait and our
    // slot both freed and handed over.
    expect(pieces.filter((piece) => piece === "gate")).toHaveLength(4)
    for (const piece of ["checkout", "isPoolRefusal", "commit"]) expect(pieces).toContain(piece)
    expect(knownBadPools.length).toBeGreaterThanOrEqual(7)
  })
})
