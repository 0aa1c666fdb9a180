/**
 * From property runs to per-requirement verdicts.
 *
 * - `fail`: some run has a counterexample for the requirement (whatever the other runs say), or it
 *   failed beyond a run's bound of counterexamples.
 * - `pass`: every applicable property that checks it spent its whole budget, at least one scenario
 *   reached its situation, and every scenario that reached it held. A scenario cut short by another
 *   requirement's failure reached it only if it got there before the cut (its trace's `covered`).
 * - `unknown`: a checking property was cut short by the time limit, or no scenario reached it (the
 *   `Sometimes`/`Reachable` rule: never a silent pass).
 * - `not-applicable`: the adapter lacks a capability (named); `error`: a checking property broke.
 */
import { type AdapterCapabilities, hasCapability } from "../adapters/contract.ts"
import type { Requirement } from "../spec/Requirement.ts"
import {
  counterexampleFor,
  type PropertyRun,
  type RequirementResult,
  spentWholeBudget,
  type Verdict,
  type VerdictCounts
} from "./RunResult.ts"

type Base = Pick<RequirementResult, "requirementId" | "subject" | "title" | "propertyIds" | "coveredRuns">

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`

/** Scenarios of `runs` that diverged on `requirementId` (the counterexample's own, known ones, beyond the bound). */
const failingScenarios = (runs: ReadonlyArray<PropertyRun>, requirementId: string): number =>
  runs.reduce((sum, run) => {
    if (run.verdict !== "fail") return sum
    const found = counterexampleFor(run, requirementId) === undefined ? 0 : 1 + (run.knownFailures[requirementId] ?? 0)
    return sum + found + (run.failuresBeyondBound?.[requirementId] ?? 0)
  }, 0)

/** The fail verdict, when some run witnessed the requirement failing; `undefined` otherwise. */
const failedResult = (base: Base, checking: ReadonlyArray<PropertyRun>): RequirementResult | undefined => {
  const failures = failingScenarios(checking, base.requirementId)
  if (failures === 0) return undefined
  const counts = `failed in ${failures} of ${plural(base.coveredRuns, "scenario")} that reached it`
  const counterexample = checking.map((run) => counterexampleFor(run, base.requirementId)).find((cx) => cx !== undefined)
  if (counterexample === undefined) {
    const bounded = checking.filter((run) => run.verdict === "fail" && run.failuresBeyondBound?.[base.requirementId] !== undefined).map((run) => run.propertyId)
    return {
      ...base,
      verdict: "fail",
      reason: `${counts}; not minimized: ${bounded.join(", ")} already had the most counterexamples one run reports`
    }
  }
  return { ...base, verdict: "fail", counterexample, reason: `${counterexample.divergence.explanation} (${counts})` }
}

/** The verdict of a requirement no run failed, from the applicable runs that check it. */
const unfailedResult = (base: Base, applicable: ReadonlyArray<PropertyRun>): RequirementResult => {
  const executed = applicable.reduce((sum, run) => sum + run.runsExecuted, 0)
  const reached = base.coveredRuns === 0 ? `reached by 0 of ${plural(executed, "scenario")}` : `${base.coveredRuns} of ${plural(executed, "scenario")} reached it; all held`
  const cut = applicable.filter((run) => !spentWholeBudget(run))
  if (cut.length > 0) {
    const spent = cut.map((run) => `${run.propertyId} ran ${run.runsExecuted} of ${run.runsRequested}`).join(", ")
    return { ...base, verdict: "unknown", reason: `the time budget ran out (${spent}); ${reached}` }
  }
  if (base.coveredRuns === 0) return { ...base, verdict: "unknown", reason: reached }
  return { ...base, verdict: "pass", reason: reached }
}

/** The verdict of one requirement from the runs of the properties that check it. */
const requirementResult = (requirement: Requirement, checking: ReadonlyArray<PropertyRun>, capabilities: AdapterCapabilities): RequirementResult => {
  const applicable = checking.filter((run) => run.verdict !== "not-applicable")
  const base: Base = {
    requirementId: requirement.id,
    subject: requirement.subject,
    title: requirement.title,
    propertyIds: checking.map((run) => run.propertyId),
    coveredRuns: applicable.reduce((sum, run) => sum + (run.covered[requirement.id] ?? 0), 0)
  }
  const missing = requirement.needs.filter((name) => !hasCapability(capabilities, name))
  if (missing.length > 0) {
    return { ...base, verdict: "not-applicable", coveredRuns: 0, missingCapabilities: missing, reason: `the adapter lacks ${missing.join(", ")}` }
  }
  const failed = failedResult(base, checking)
  if (failed !== undefined) return failed
  if (checking.length === 0) return { ...base, verdict: "unknown", reason: "no property in this run checks it" }
  const broken = checking.find((run) => run.verdict === "error")
  if (broken?.verdict === "error") return { ...base, verdict: "error", reason: `${broken.propertyId}: ${broken.error.message}` }
  if (applicable.length === 0) {
    const lacking = [...new Set(checking.flatMap((run) => (run.verdict === "not-applicable" ? run.missingCapabilities : [])))]
    return { ...base, verdict: "not-applicable", coveredRuns: 0, missingCapabilities: lacking, reason: `its properties need ${lacking.join(", ")}` }
  }
  return unfailedResult(base, applicable)
}

/** Per-requirement verdicts of one adapter, in catalog order. */
export const requirementResults = (
  requirements: ReadonlyArray<Requirement>,
  runs: ReadonlyArray<PropertyRun>,
  propertyRequirements: ReadonlyMap<string, ReadonlyArray<string>>,
  capabilities: AdapterCapabilities
): ReadonlyArray<RequirementResult> =>
  requirements.map((requirement) =>
    requirementResult(
      requirement,
      runs.filter((run) => (propertyRequirements.get(run.propertyId) ?? []).includes(requirement.id)),
      capabilities
    )
  )

/** Totals by verdict. */
export const countVerdicts = (verdicts: ReadonlyArray<Verdict>): VerdictCounts => {
  const counts = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
  for (const verdict of verdicts) counts[verdict]++
  return counts
}
