/**
 * The findings part of the terminal summary: what a reader acts on first comes first. Every failure
 * (with its reason and replay command), then the errors, then the unknowns. Errors and unknowns
 * collapse into one line per adapter, checking properties and cause, since one adapter error or one
 * property cut short leaves many requirements without a verdict for the same reason.
 */
import type { AdapterResult, ConformanceReport, RequirementResult } from "../harness/RunResult.ts"
import { replayCommand } from "../reports/text.ts"
import { plural } from "./wording.ts"

/** The lines of one failed requirement: verdict, reason, and its steps with the replay command. */
const failureLines = (requirement: RequirementResult, adapter: string): ReadonlyArray<string> => {
  const lines = ["", `FAIL ${requirement.requirementId} on ${adapter}: ${requirement.title}`, `  ${requirement.reason}`]
  const counterexample = requirement.counterexample
  if (counterexample !== undefined) {
    lines.push(`  ${plural(counterexample.trace.steps.length, "step")}; replay: ${replayCommand(counterexample.replayToken)} --step`)
  }
  return lines
}

/** Requirements of one verdict grouped by `key`, groups in first-seen order. */
const groupBy = (requirements: ReadonlyArray<RequirementResult>, key: (requirement: RequirementResult) => string): ReadonlyArray<ReadonlyArray<RequirementResult>> => {
  const groups = new Map<string, Array<RequirementResult>>()
  for (const requirement of requirements) {
    const name = key(requirement)
    groups.set(name, [...(groups.get(name) ?? []), requirement])
  }
  return [...groups.values()]
}

const propertiesOf = (requirement: RequirementResult): string => (requirement.propertyIds.length === 0 ? "no property" : requirement.propertyIds.join(", "))

/**
 * The property that broke and its cause, from an error's reason (`property: cause`, as the verdicts
 * write it); the checking properties and the whole reason when it has no such prefix.
 */
const brokenBy = (requirement: RequirementResult): { readonly property: string; readonly cause: string } => {
  const property = requirement.propertyIds.find((id) => requirement.reason.startsWith(`${id}: `))
  const cause = property === undefined ? requirement.reason : requirement.reason.slice(property.length + 2)
  return { property: property ?? propertiesOf(requirement), cause: cause.replace(/\s*\n\s*/g, " ") }
}

/** One line per property and cause: `ERROR ADP-001, ADP-002 on vendor (adapter/transactions): cause`. */
export const errorLines = (adapter: AdapterResult): ReadonlyArray<string> =>
  groupBy(adapter.requirements.filter((requirement) => requirement.verdict === "error"), (requirement) => {
    const { property, cause } = brokenBy(requirement)
    return `${property}\u0000${cause}`
  }).map((group) => {
    const { property, cause } = brokenBy(group[0]!)
    return `ERROR ${group.map((requirement) => requirement.requirementId).join(", ")} on ${adapter.fingerprint.name} (${property}): ${cause}`
  })

/**
 * One reason for a group of unknown requirements checked by the same properties: their common reason,
 * or the part they share (`the time budget ran out (...)`) and how many were never reached.
 */
export const groupReason = (group: ReadonlyArray<RequirementResult>): string => {
  const reasons = [...new Set(group.map((requirement) => requirement.reason))]
  if (reasons.length === 1) return reasons[0]!
  const heads = [...new Set(reasons.map((reason) => reason.split("; ")[0]!))]
  const unreached = group.filter((requirement) => requirement.coveredRuns === 0).length
  const reachedPart = unreached === 0 ? "every one was reached and held" : `${unreached} of ${group.length} never reached`
  if (heads.length === 1) return `${heads[0]}; ${reachedPart}`
  return `${reasons[0]} (and ${plural(reasons.length - 1, "other reason")}; see report.md)`
}

/** One line per adapter and checking properties: `UNKNOWN ALM-013, ALM-014 on sqlite (alarms/timeline): reason`. */
export const unknownLines = (report: ConformanceReport): ReadonlyArray<string> =>
  report.adapters.flatMap((adapter) =>
    groupBy(adapter.requirements.filter((requirement) => requirement.verdict === "unknown"), propertiesOf).map((group) =>
      `UNKNOWN ${group.map((requirement) => requirement.requirementId).join(", ")} on ${adapter.fingerprint.name} (${propertiesOf(group[0]!)}): ${groupReason(group)}`
    )
  )

/** The findings of a report: failures first, then errors (one line per property and cause), then unknowns (one line per property). */
export const findingLines = (report: ConformanceReport): ReadonlyArray<string> => {
  const failures = report.adapters.flatMap((adapter) =>
    adapter.requirements.filter((requirement) => requirement.verdict === "fail").flatMap((requirement) => failureLines(requirement, adapter.fingerprint.name))
  )
  const errors = report.adapters.flatMap(errorLines)
  const unknown = unknownLines(report)
  return [...failures, ...(errors.length === 0 ? [] : ["", ...errors]), ...(unknown.length === 0 ? [] : ["", ...unknown])]
}

/** The closing line's seed and budget: `seed 7, 1 run per property` or `seeds 1, 2, 3, 200 runs per property each`. */
export const budgetText = (report: ConformanceReport, seeds: ReadonlyArray<number> | undefined): string =>
  seeds === undefined || seeds.length <= 1
    ? `seed ${seeds?.[0] ?? report.options.seed}, ${plural(report.options.runs, "run")} per property`
    : `seeds ${seeds.join(", ")}, ${plural(report.options.runs, "run")} per property with each`
