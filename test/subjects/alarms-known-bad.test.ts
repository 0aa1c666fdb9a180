/**
 * Each known-bad alarms implementation is caught by a small hand-written witness scenario that the
 * shipped implementation passes. (The model-based properties must catch them too; these witnesses
 * prove each variant is observably wrong and the shipped scheduler is right on the same scenario.)
 */
import { describe, expect, it } from "vitest"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { knownBadAlarms } from "../known-bad/alarms/index.ts"
import { alarmWitnesses as witnesses, runWitness, witnessesElsewhere } from "./alarmsWitnesses.ts"

describe("known-bad alarms implementations", () => {
  it("has a witness for every known-bad implementation, and ids are unique", () => {
    const ids = knownBadAlarms.map((bad) => bad.name)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.filter((id) => witnesses[id] === undefined && witnessesElsewhere[id] === undefined)).toEqual([])
  })

  it("the shipped implementation passes every witness", async () => {
    const problems: Array<string> = []
    for (const [id, witness] of Object.entries(witnesses)) {
      const problem = await runWitness(shippedAlarms, witness)
      if (problem !== null) problems.push(`${id}: ${problem}`)
    }
    expect(problems).toEqual([])
  })

  for (const bad of knownBadAlarms.filter((entry) => witnessesElsewhere[entry.name] === undefined)) {
    it(`${bad.name} is caught: ${bad.bug}`, async () => {
      const witness = witnesses[bad.name]
      expect(witness).toBeDefined()
      const problem = await runWitness(bad.implementation, witness!)
      if (process.env["SHOW_WITNESSES"] !== undefined) console.log(`${bad.name}: ${problem}`)
      expect(problem).not.toBeNull()
    })
  }
})
