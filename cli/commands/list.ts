/**
 * `durable-conformance list [--json]`: the requirement catalog by subject, the built-in adapters with
 * their capabilities, and the properties that check each requirement.
 */
import { Effect } from "effect"
import { builtInAdapters } from "../adapterRegistry.ts"
import { suites } from "../../properties/registry.ts"
import type { CliIo } from "../io.ts"
import { ExitCode } from "../io.ts"
import type { ListOptions } from "../options.ts"

/** Prints the catalog; `--json` prints it as JSON for tools. */
export const listCommand = (options: ListOptions, io: CliIo): Effect.Effect<number> =>
  Effect.sync(() => {
    const catalog = {
      subjects: suites.map((suite) => ({
        subject: suite.subject,
        requirements: suite.requirements.map((requirement) => ({
          ...requirement,
          properties: suite.properties.filter((property) => property.requirements.includes(requirement.id)).map((property) => property.id)
        })),
        properties: suite.properties.map((property) => ({ id: property.id, title: property.title, needs: property.needs }))
      })),
      adapters: builtInAdapters.map((adapter) => ({ name: adapter.name, description: adapter.description, capabilities: adapter.capabilities }))
    }
    if (options.json) {
      io.stdout(`${JSON.stringify(catalog, null, 2)}\n`)
      return ExitCode.ok
    }
    const lines: Array<string> = []
    lines.push("Adapters")
    for (const adapter of catalog.adapters) {
      const capabilities = Object.entries(adapter.capabilities)
        .map(([name, value]) => (typeof value === "boolean" ? (value ? name : `no ${name}`) : `platformAlarm=${value}`))
        .join(", ")
      lines.push(`  ${adapter.name.padEnd(10)} ${adapter.description}`)
      lines.push(`  ${"".padEnd(10)} ${capabilities}`)
    }
    for (const subject of catalog.subjects) {
      lines.push("", `Subject ${subject.subject}: ${subject.requirements.length} requirements, ${subject.properties.length} properties`)
      for (const requirement of subject.requirements) {
        const needs = requirement.needs.length > 0 ? ` [needs ${requirement.needs.join(", ")}]` : ""
        lines.push(`  ${requirement.id}  ${requirement.title} (${requirement.rules.join(", ")})${needs}`)
        lines.push(`           checked by ${requirement.properties.length === 0 ? "no property" : requirement.properties.join(", ")}`)
      }
    }
    io.stdout(`${lines.join("\n")}\n`)
    return ExitCode.ok
  })
