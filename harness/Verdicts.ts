/**
 * From property runs to per-requirement verdicts. A requirement passes only when some property that
 * checks it ran its whole budget and actually reached the requirement's situation; a requirement no
 * run exercised is `unknown`, never a silent pass (the `Sometimes`/`Reachable` rule).
 */
import { type AdapterCapabilities, hasCapability } from "../adapters/contract.ts"
import type { Requirement } from "../spec/Requirement.ts"
import type { PropertyRun, RequirementResult, Verdict, VerdictCounts } from "./RunResult.ts"

/** Per-requirement verdicts of one adapter, in catalog order. */
export const requirementResults = (
  requirements: ReadonlyArray<Requirement>,
  runs: ReadonlyArray<PropertyRun>,
  propertyRequirements: ReadonlyMap<string, ReadonlyArray<string>>,
  capabilities: AdapterCapabilities
): ReadonlyArray<RequirementResult> =>
  requirements.map((requirement): RequirementResult => {
    const base = { requirementId: requirement.id, subject: requirement.subject, title: requirement.title }
    const missing = requirement.needs.filter((name) => !hasCapability(capabilities, name))
    const checking = runs.filter((run) => (propertyRequirements.get(run.propertyId) ?? []).includes(requirement.id))
    const propertyIds = checking.map((run) => run.propertyId)
    const coveredRuns = checking.reduce((sum, run) => sum + (run.covered[requirement.id] ?? 0), 0)
    if (missing.length > 0) {
      return { ...base, verdict: "not-applicable", propertyIds, coveredRuns: 0, missingCapabilities: missing, reason: `the adapter lacks ${missing.join(", ")}` }
    }
    const failing = checking.find((run) => run.verdict === "fail" && run.counterexample?.divergence.requirementId === requirement.id)
    if (failing?.counterexample !== undefined) {
      return {
        ...base,
        verdict: "fail",
        propertyIds,
        coveredRuns,
        counterexample: failing.counterexample,
        reason: failing.counterexample.divergence.explanation
      }
    }
    if (checking.length === 0) {
      return { ...base, verdict: "unknown", propertyIds, coveredRuns, reason: "no property in this run checks it" }
    }
    const broken = checking.find((run) => run.verdict === "error")
    if (broken !== undefined) {
      return { ...base, verdict: "error", propertyIds, coveredRuns, reason: `${broken.propertyId}: ${broken.error?.message ?? "infrastructure error"}` }
    }
    const applicable = checking.filter((run) => run.verdict !== "not-applicable")
    if (applicable.length === 0) {
      const lacking = [...new Set(checking.flatMap((run) => run.missingCapabilities ?? []))]
      return { ...base, verdict: "not-applicable", propertyIds, coveredRuns: 0, missingCapabilities: lacking, reason: `its properties need ${lacking.join(", ")}` }
    }
    const executed = applicable.reduce((sum, run) => sum + run.runsExecuted, 0)
    if (coveredRuns === 0) {
      const exhausted = applicable.some((run) => run.verdict === "unknown")
      return {
        ...base,
        verdict: "unknown",
        propertyIds,
        coveredRuns,
        reason: exhausted
          ? `the time budget ran out before any of ${executed} runs reached this situation`
          : `none of ${executed} generated runs reached this situation`
      }
    }
    const complete = applicable.some((run) => run.verdict === "pass" || run.verdict === "fail")
    if (!complete) {
      return { ...base, verdict: "unknown", propertyIds, coveredRuns, reason: `the time budget ran out after ${executed} runs (${coveredRuns} reached it, none failed)` }
    }
    return { ...base, verdict: "pass", propertyIds, coveredRuns, reason: `held in ${coveredRuns} of ${executed} runs that reached it` }
  })

/** Totals by verdict. */
export const countVerdicts = (verdicts: ReadonlyArray<Verdict>): VerdictCounts => {
  const counts = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
  for (const verdict of verdicts) counts[verdict]++
  return counts
}
