/**
 * Attribution names the requirement citing the most of a disagreement's rules, and, within a
 * property's own requirement list, never one the property does not check.
 */
import { describe, expect, it } from "vitest"
import { makeAttributor } from "../../harness/Attribution.ts"
import { alarmRequirements } from "../../spec/alarms.ts"

const attributor = makeAttributor(alarmRequirements, "ALM-042")

describe("attribution", () => {
  it("names the requirement citing the most of the rules", () => {
    // A handler's write failed in storage (R4, R27), so the handler failed (R22, R24): the race
    // requirement cites two of them, every other one at most one.
    expect(attributor.attribute(["R4", "R27", "R22", "R24"]).requirementId).toBe("ALM-052")
  })

  it("within a property's list, names only a requirement of that list", () => {
    const withoutRaces = alarmRequirements.map((requirement) => requirement.id).filter((id) => id !== "ALM-052" && id !== "ALM-053")
    const attribution = attributor.within(withoutRaces).attribute(["R4", "R27", "R22", "R24"])
    expect(withoutRaces).toContain(attribution.requirementId)
    expect([attribution.requirementId, ...attribution.alsoRequirementIds]).not.toContain("ALM-052")
    expect(attribution.requirementId).toBe("ALM-004")
  })

  it("narrows once per requirement list: every scenario of a property shares one attributor", () => {
    const own = ["ALM-004", "ALM-052"]
    expect(attributor.within(own)).toBe(attributor.within([...own]))
    expect(attributor.within(["ALM-004"])).not.toBe(attributor.within(own))
    expect(attributor.within(own).attribute(["R4", "R27", "R22", "R24"]).requirementId).toBe("ALM-052")
  })

  it("refuses a list with no requirement of the catalog", () => {
    expect(() => attributor.within(["NOPE-1"])).toThrow(/no requirement of the catalog/)
  })
})
