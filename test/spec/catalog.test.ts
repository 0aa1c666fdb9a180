import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { builtInAdapters } from "../../cli/adapterRegistry.ts"
import { suites } from "../../properties/registry.ts"
import { updateReadmeSection } from "../../spec/document.ts"
import { allRequirements } from "../../spec/index.ts"

const root = resolve(import.meta.dirname, "../..")

describe("requirement catalog", () => {
  it("has unique, well-formed IDs with MUST text and cited rules", () => {
    const ids = allRequirements.map((requirement) => requirement.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const requirement of allRequirements) {
      expect(requirement.id).toMatch(/^[A-Z]{3}-\d{3}$/)
      expect(requirement.text).toMatch(/\bMUST\b/)
      expect(requirement.rules.length).toBeGreaterThan(0)
      expect(requirement.since).toMatch(/^\d+\.\d+\.\d+$/)
    }
  })

  it("is what the README lists (run npm run docs after changing spec/)", () => {
    const readme = readFileSync(resolve(root, "README.md"), "utf8")
    expect(updateReadmeSection(readme, allRequirements)).toBe(readme)
  })

  it("every requirement of a registered suite is checked by at least one property", () => {
    for (const suite of suites) {
      const checked = new Set(suite.properties.flatMap((property) => property.requirements))
      const unchecked = suite.requirements.filter((requirement) => !checked.has(requirement.id)).map((requirement) => requirement.id)
      expect(unchecked, `${suite.subject}: requirements no property checks`).toEqual([])
    }
  })
})

describe("adapter registry", () => {
  it("declares the capabilities the live adapters report", async () => {
    for (const entry of builtInAdapters.filter((adapter) => adapter.name !== "do-sqlite")) {
      const definition = await entry.load()
      const capabilities = await Effect.runPromise(Effect.scoped(Effect.map(definition.make, (adapter) => adapter.capabilities)))
      expect(capabilities, entry.name).toEqual(entry.capabilities)
    }
  })
})
