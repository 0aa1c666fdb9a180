/**
 * The known-bad cron declarations are well formed and pure: each swaps exactly one piece of the
 * shipped runtime (every other piece is the shipped one itself), declares the catalog requirements its
 * bug breaks, and states the bug in one line citing its B-number (the page's historical bugs in order)
 * when the bug is historical. There are the five historical bugs and at least three of our own.
 */
import { describe, expect, it } from "vitest"
import { purityProblems } from "../../../harness/knownBad.ts"
import { cronRequirements } from "../../../spec/cron.ts"
import { defaultCronPieces } from "../../../subjects/cron/pieces.ts"
import { MAX_STEPS } from "./expectations.ts"
import { knownBadCrons } from "./index.ts"

const catalogIds = new Set(cronRequirements.map((requirement) => requirement.id))

describe("known-bad cron declarations", () => {
  it("have unique names, implementation names known-bad/<name> and an expectation each", () => {
    const names = knownBadCrons.map((bad) => bad.name)
    expect(new Set(names).size).toBe(names.length)
    for (const bad of knownBadCrons) expect(bad.implementation.name).toBe(`known-bad/${bad.name}`)
    expect([...names].sort()).toEqual(Object.keys(MAX_STEPS).sort())
  })

  it("cover the five historical bugs B1-B5 and at least three of our own", () => {
    const historical = knownBadCrons.filter((bad) => /^b\d-/.test(bad.name)).map((bad) => bad.name.slice(0, 2)).sort()
    expect(historical).toEqual(["b1", "b2", "b3", "b4", "b5"])
    expect(knownBadCrons.length - historical.length).toBeGreaterThanOrEqual(3)
  })

  it("each swaps exactly one piece and keeps every other shipped piece", () => {
    for (const bad of knownBadCrons) {
      expect(purityProblems(defaultCronPieces, bad.pieces, bad.allPieces), bad.name).toEqual([])
      expect(Object.keys(bad.pieces), bad.name).toEqual([bad.swappedPiece])
    }
  })

  it("each declares catalog requirements its bug breaks, and states the bug in one line", () => {
    for (const bad of knownBadCrons) {
      expect(bad.breaks.length, bad.name).toBeGreaterThan(0)
      expect(bad.breaks.filter((id) => !catalogIds.has(id)), bad.name).toEqual([])
      expect(bad.bug, bad.name).not.toContain("\n")
      const historical = /^b(\d)-/.exec(bad.name)
      if (historical !== null) expect(bad.bug.startsWith(`B${historical[1]}: `), bad.name).toBe(true)
    }
  })
})
