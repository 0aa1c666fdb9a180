/**
 * Content's targeted units (`properties/content/targeted.ts`): each unit, run on its own against the
 * shipped store on sqlite, agrees with the model and reaches the situation it is drawn for, whatever
 * it drew (a faulted upload: the fault phase it drew, as it struck); and a unit ends a scenario in as many scenarios as its shape says, no more.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentSuite } from "../../properties/content/index.ts"
import { PAYLOADS, PROPERTY_SETTINGS } from "../../properties/content/config.ts"
import { type ContentUnitKind, MODEL_UNITS, targetedCommands } from "../../properties/content/targeted.ts"
import { propertyById } from "../../harness/Suite.ts"

/** Per unit kind: the property it is drawn in and the situations every draw of it reaches. */
const REACHES: ReadonlyArray<readonly [ContentUnitKind, string, ReadonlyArray<string>]> = [
  ["readBack", "content/model", ["readSizeMismatch", "streamStored"]],
  ["expiryBoundary", "content/model", ["grantExpiredAtSkewBoundary"]],
  ["detachRace", "content/races", ["sweepRaceDetach"]],
  ["faultedUpload", "content/faults", []],
  ["grantOtherSize", "content/model", ["grantSizeMismatch", "grantRaisesHorizon"]],
  ["grantOtherSize", "content/faults", ["grantSizeMismatch", "grantRaisesHorizon"]],
  ["detachAttached", "content/model", ["attachRecorded", "detachExisting", "detachMissing"]],
  ["detachAttached", "content/faults", ["attachRecorded", "detachExisting", "detachMissing"]],
  ["uploadRace", "content/races", ["sweepRaceUpload", "readStored"]]
]

/** Draws of each unit run (seeded). */
const DRAWS = 4

describe("content targeted units on sqlite", () => {
  for (const [kind, propertyId, situations] of REACHES) {
    it(`${kind} in ${propertyId} reaches ${situations.join(", ")} and agrees with the model`, async () => {
      const adapter = makeSqliteAdapter()
      const property = propertyById(contentSuite(), propertyId)
      const units = fc.sample(targetedCommands({ weights: { [kind]: 1 }, in4: 4 }), { numRuns: DRAWS, seed: 11 })
      for (const commands of units) {
        const trace = await Effect.runPromise(executeScenario(property, adapter, { commands } as unknown as Json))
        expect(trace.divergence, trace.divergence?.explanation).toBeNull()
        for (const situation of situations) expect(trace.situations, JSON.stringify(commands)).toContain(situation)
      }
    }, 60_000)
  }

  it("a faulted upload counts the fault as it struck: a crash inside, after the commit, or a lost reply", async () => {
    const adapter = makeSqliteAdapter()
    const property = propertyById(contentSuite(), "content/faults")
    const reached = new Set<string>()
    for (const commands of fc.sample(targetedCommands({ weights: { faultedUpload: 1 }, in4: 4 }), { numRuns: 12, seed: 5 })) {
      const trace = await Effect.runPromise(executeScenario(property, adapter, { commands } as unknown as Json))
      expect(trace.divergence, trace.divergence?.explanation).toBeNull()
      for (const situation of trace.situations ?? []) if (situation.startsWith("fault")) reached.add(situation)
    }
    expect([...reached].sort()).toEqual(["faultAfterCommit", "faultInsideTransaction", "faultLostReply"])
  }, 60_000)

  it("a grant-other-size unit asks for a size within the store's limit, one byte off the stored one, above and below", () => {
    const units = fc.sample(targetedCommands({ weights: { grantOtherSize: 1 }, in4: 4 }), { numRuns: 60, seed: 3 })
    const deltas = new Set<number>()
    for (const unit of units) {
      const [upload, , wrong, right] = unit as ReadonlyArray<{ readonly payload: number; readonly sizeDelta?: number }>
      const size = PAYLOADS[upload!.payload]!.byteLength + wrong!.sizeDelta!
      expect(size).toBeGreaterThanOrEqual(0)
      expect(size).toBeLessThanOrEqual(PROPERTY_SETTINGS.maxContentBytes)
      expect(right!.sizeDelta).toBe(0)
      deltas.add(wrong!.sizeDelta!)
    }
    expect([...deltas].sort()).toEqual([-1, 1])
  })

  it("a read-back unit streams its content whole, then interrupted too in some draws", () => {
    const units = fc.sample(targetedCommands({ weights: { readBack: 1 }, in4: 4 }), { numRuns: 40, seed: 3 })
    const interrupts = new Set(units.map((unit) => unit.filter((command) => command.op === "stream").map((command) => (command as { readonly interrupt: boolean }).interrupt).join(",")))
    expect([...interrupts].sort()).toEqual(["false", "false,true"])
  })

  it("a unit ends about in4 scenarios out of 4, and none when in4 is 0", () => {
    const drawn = fc.sample(targetedCommands(MODEL_UNITS), { numRuns: 400, seed: 7 })
    const ended = drawn.filter((unit) => unit.length > 0).length
    expect(ended).toBeGreaterThan(400 * MODEL_UNITS.in4 / 4 - 60)
    expect(ended).toBeLessThan(400 * MODEL_UNITS.in4 / 4 + 60)
    expect(fc.sample(targetedCommands({ ...MODEL_UNITS, in4: 0 }), { numRuns: 20, seed: 7 }).every((unit) => unit.length === 0)).toBe(true)
  })
})
