/**
 * The known-bad alarms declarations are well formed and pure: each swaps exactly one piece of the
 * shipped scheduler (every other piece is the shipped one itself), declares the requirements its bug
 * breaks (IDs of the alarms catalog), and states the bug in one line citing its H-number when the bug
 * is historical. The kit refuses impure declarations.
 */
import { describe, expect, it } from "vitest"
import { buildKnownBad, purityProblems } from "../../../harness/knownBad.ts"
import { alarmRequirements } from "../../../spec/alarms.ts"
import { defaultAlarmPieces } from "../../../subjects/alarms/pieces.ts"
import { knownBadAlarms } from "./index.ts"
import { alarmsPieceKit } from "./kit.ts"

const catalogIds = new Set(alarmRequirements.map((requirement) => requirement.id))

describe("known-bad alarms declarations", () => {
  it("have unique names and implementation names known-bad/<name>", () => {
    const names = knownBadAlarms.map((bad) => bad.name)
    expect(new Set(names).size).toBe(names.length)
    for (const bad of knownBadAlarms) expect(bad.implementation.name).toBe(`known-bad/${bad.name}`)
  })

  it("each swaps exactly one piece and keeps every other shipped piece", () => {
    for (const bad of knownBadAlarms) {
      expect(purityProblems(defaultAlarmPieces, bad.pieces, bad.allPieces), bad.name).toEqual([])
      expect(Object.keys(bad.pieces), bad.name).toEqual([bad.swappedPiece])
    }
  })

  it("each declares the catalog requirements its bug breaks, and states the bug in one line", () => {
    for (const bad of knownBadAlarms) {
      expect(bad.breaks.length, bad.name).toBeGreaterThan(0)
      expect(bad.breaks.filter((id) => !catalogIds.has(id)), bad.name).toEqual([])
      expect(new Set(bad.breaks).size, bad.name).toBe(bad.breaks.length)
      expect(bad.bug, bad.name).not.toContain("\n")
      const historical = /^h(\d)-/.exec(bad.name)
      if (historical !== null) expect(bad.bug.startsWith(`H${historical[1]}: `), bad.name).toBe(true)
    }
  })

  it("the kit refuses a declaration swapping no piece, two pieces, a shipped piece, or breaking nothing", () => {
    const declaration = { name: "impure", bug: "test", breaks: ["ALM-001"] }
    expect(() => buildKnownBad(alarmsPieceKit, { ...declaration, pieces: {} })).toThrow(/swaps 0 pieces/)
    expect(() => buildKnownBad(alarmsPieceKit, { ...declaration, pieces: { passAllowsSchedule: () => true, scheduleAttempts: () => 0 } }))
      .toThrow(/swaps 2 pieces/)
    expect(() => buildKnownBad(alarmsPieceKit, { ...declaration, pieces: { reconcile: defaultAlarmPieces.reconcile } }))
      .toThrow(/shipped piece itself/)
    expect(() => buildKnownBad(alarmsPieceKit, { ...declaration, breaks: [], pieces: { passAllowsSchedule: () => true } }))
      .toThrow(/declare the requirements/)
  })

  it("purity notices a piece changed besides the swapped one", () => {
    const swapped = { passAllowsSchedule: () => true }
    const tampered = { ...defaultAlarmPieces, ...swapped, scheduleAttempts: () => 0 }
    expect(purityProblems(defaultAlarmPieces, swapped, tampered)).toEqual(["changes scheduleAttempts besides the swapped piece"])
  })
})
