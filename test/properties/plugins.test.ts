/**
 * The subject plugin registry: each plugin is consistent with itself (its guard accepts its shipped
 * implementation, its suite is of its subject and catalog, its model describes itself), and the suite
 * registry, the spec index and implementation-module binding are all derived from it.
 */
import { describe, expect, it } from "vitest"
import { exportShapes, findPlugin, resolveExportBinding } from "../../harness/SubjectPlugin.ts"
import { subjectPlugins } from "../../properties/plugins.ts"
import { suites } from "../../properties/registry.ts"
import { allRequirements } from "../../spec/index.ts"

describe("subject plugins", () => {
  it("are consistent with themselves", () => {
    for (const plugin of subjectPlugins) {
      expect(plugin.isImplementation(plugin.shipped), plugin.name).toBe(true)
      expect(plugin.isImplementation({ name: "" }), plugin.name).toBe(false)
      const suite = plugin.suite(plugin.shipped)
      expect(suite.subject).toBe(plugin.name)
      expect(suite.implementation).toBe(plugin.shipped.name)
      expect(suite.requirements).toBe(plugin.requirements)
      expect(plugin.requirements.every((requirement) => requirement.subject === plugin.name), plugin.name).toBe(true)
      expect(plugin.model.name.length, plugin.name).toBeGreaterThan(0)
      expect(plugin.model.describeState(plugin.model.init()).length, plugin.name).toBeGreaterThan(0)
    }
  })

  it("are what the suite registry and the spec index iterate, after the adapter contract", () => {
    expect(suites.map((suite) => suite.subject)).toEqual(["adapter", ...subjectPlugins.map((plugin) => plugin.name)])
    const subjectsInCatalog = [...new Set(allRequirements.map((requirement) => requirement.subject))]
    expect(subjectsInCatalog).toEqual(["adapter", ...subjectPlugins.map((plugin) => plugin.name)])
  })

  it("bind an implementation module's export to its subject, or say why not", () => {
    const alarms = findPlugin(subjectPlugins, "alarms")!
    // A bare { name, make } fits alarms, content, clocks and cron alike: it must say which it is.
    const ambiguous = resolveExportBinding(subjectPlugins, alarms.shipped)
    expect(ambiguous?._tag).toBe("Ambiguous")
    expect(ambiguous?._tag === "Ambiguous" ? ambiguous.plugins.map((plugin) => plugin.name) : []).toEqual(
      subjectPlugins.filter((plugin) => plugin.isImplementation(alarms.shipped)).map((plugin) => plugin.name)
    )
    expect(resolveExportBinding([alarms], alarms.shipped)).toMatchObject({ _tag: "Bound", plugin: alarms, version: undefined })
    expect(resolveExportBinding(subjectPlugins, { subject: "alarms", implementation: alarms.shipped, version: "1.2.3" }))
      .toMatchObject({ _tag: "Bound", plugin: alarms, version: "1.2.3" })
    expect(resolveExportBinding(subjectPlugins, { subject: "adapter", implementation: alarms.shipped })).toEqual({ _tag: "UnknownSubject", subject: "adapter" })
    expect(resolveExportBinding(subjectPlugins, { subject: "alarms", implementation: {} })).toEqual({ _tag: "NotAnImplementation", plugin: alarms })
    expect(resolveExportBinding(subjectPlugins, 42)).toBeUndefined()
    expect(exportShapes([alarms], { version: true })).toBe("an AlarmsImplementation { name, make } or { subject: \"alarms\", implementation, version }")
  })
})
