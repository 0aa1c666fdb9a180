/**
 * The known-bad clocks declarations are well formed and pure: each swaps exactly one piece of the
 * shipped engine, declares catalog requirements its bug breaks, states the bug in one line citing its
 * B-number when historical, and the reference page's historical bugs B1a-B9 each have one.
 */
import { describe, expect, it } from "vitest"
import { purityProblems } from "../../../harness/knownBad.ts"
import { clockRequirements } from "../../../spec/clocks.ts"
import { defaultClockPieces } from "../../../subjects/clocks/pieces.ts"
import { knownBadClocks } from "./index.ts"

const catalogIds = new Set(clockRequirements.map((requirement) => requirement.id))

describe("known-bad clocks declarations", () => {
  it("have unique names and implementation names known-bad/<name>", () => {
    const names = knownBadClocks.map((bad) => bad.name)
    expect(new Set(names).size).toBe(names.length)
    for (const bad of knownBadClocks) expect(bad.implementation.name).toBe(`known-bad/${bad.name}`)
  })

  it("each swaps exactly one piece and keeps every other shipped piece", () => {
    for (const bad of knownBadClocks) {
      expect(purityProblems(defaultClockPieces, bad.pieces, bad.allPieces), bad.name).toEqual([])
      expect(Object.keys(bad.pieces), bad.name).toEqual([bad.swappedPiece])
    }
  })

  it("each declares catalog requirements and states the bug in one line", () => {
    for (const bad of knownBadClocks) {
      expect(bad.breaks.filter((id) => !catalogIds.has(id)), bad.name).toEqual([])
      expect(new Set(bad.breaks).size, bad.name).toBe(bad.breaks.length)
      expect(bad.bug, bad.name).not.toContain("\n")
      const historical = /^b(\d[a-d]?)-/.exec(bad.name)
      if (historical !== null) expect(bad.bug.startsWith(`B${historical[1]}: `), bad.name).toBe(true)
    }
  })

  it("covers every historical bug of the reference page and at least five of our own", () => {
    const historical = knownBadClocks.map((bad) => /^b(\d[a-d]?)-/.exec(bad.name)?.[1]).filter((id) => id !== undefined)
    expect(historical.sort()).toEqual(["1a", "1b", "1c", "1d", "3", "4", "5", "8", "9"])
    expect(knownBadClocks.length - historical.length).toBeGreaterThanOrEqual(5)
  })
})
