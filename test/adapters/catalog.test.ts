/**
 * The adapter requirement catalog and its properties agree: unique IDs, every requirement witnessed
 * by at least one property, every property naming only catalog requirements, and scenarios that are
 * plain JSON (they survive a JSON round trip, so they replay exactly).
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { sqliteCapabilities } from "../../adapters/sqlite/index.ts"
import { assertSuiteConsistent, propertyById } from "../../harness/Suite.ts"
import { adapterProperties } from "../../properties/adapter/index.ts"
import { ADP, adapterRequirements } from "../../spec/adapter.ts"
import { catalog } from "../../spec/Requirement.ts"

describe("adapter requirement catalog", () => {
  it("has unique, well-formed IDs and consistent properties", () => {
    const byId = catalog(adapterRequirements)
    expect([...byId.keys()]).toEqual(Object.values(ADP))
    for (const requirement of adapterRequirements) {
      expect(requirement.id).toMatch(/^ADP-\d{3}$/)
      expect(requirement.subject).toBe("adapter")
      expect(requirement.text).toMatch(/MUST/)
      expect(requirement.rules.length).toBeGreaterThan(0)
    }
    assertSuiteConsistent({ subject: "adapter", implementation: "adapter", requirements: adapterRequirements, properties: adapterProperties })
  })

  it("finds a property by its id, and names the ids there are when the asked one is missing", () => {
    const suite = { subject: "adapter" as const, implementation: "adapter", requirements: adapterRequirements, properties: adapterProperties }
    const first = adapterProperties[0]!
    expect(propertyById(suite, first.id)).toBe(first)
    expect(() => propertyById(suite, "adapter/misspelled")).toThrow(`suite adapter (adapter) has no property adapter/misspelled; it has ${adapterProperties.map((property) => property.id).join(", ")}`)
  })

  it("witnesses every requirement with some property", () => {
    const witnessed = new Set(adapterProperties.flatMap((property) => property.requirements))
    for (const requirement of adapterRequirements) expect(witnessed.has(requirement.id), requirement.id).toBe(true)
  })

  it("generates scenarios that are plain JSON", () => {
    for (const property of adapterProperties) {
      for (const scenario of fc.sample(property.scenario(sqliteCapabilities), { numRuns: 50, seed: 1 })) {
        expect(JSON.parse(JSON.stringify(scenario))).toEqual(scenario)
      }
    }
  })
})
