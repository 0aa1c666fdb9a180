/**
 * Situation coverage: how often the scenarios of a run reached each of a subject's named situations
 * (the model's `replayDrop`, `crashAfterCommit`, ... — states a requirement needs in order to be
 * tested at all, like Antithesis' `Sometimes`). A verdict says what held in the scenarios that ran;
 * this table says what those scenarios exercised. A situation reached fewer than
 * `SITUATION_FLAG_BELOW` times is flagged in the reports, and certificates list the ones never reached.
 *
 * @example
 * ```ts
 * const coverage = situationCoverage(suites, adapterResult.properties, adapter.capabilities)
 * flaggedSituations(coverage[0]!) // [{ situation: "parkReportLost", scenarios: 2 }]
 * ```
 */
import { type AdapterCapabilities, hasCapability } from "../adapters/contract.ts"
import type { PropertyRun } from "./RunResult.ts"
import type { SubjectSuite } from "./Suite.ts"
import type { SubjectName } from "../spec/Requirement.ts"

/** A situation reached fewer times than this in one run on one adapter is flagged as rarely reached. */
export const SITUATION_FLAG_BELOW = 5

/** One situation and the number of scenarios that reached it. */
export interface SituationCount {
  readonly situation: string
  readonly scenarios: number
}

/** One subject's situation coverage on one adapter. */
export interface SubjectCoverage {
  readonly subject: SubjectName
  /** Scenarios executed by the subject's properties that apply to the adapter. */
  readonly scenarios: number
  /** Every situation the subject names, in its order, with how many scenarios reached it (0 included). */
  readonly situations: ReadonlyArray<SituationCount>
}

/** The situations of `suite` an adapter with `capabilities` can reach (`SubjectSuite.situationNeeds`), in order. */
export const reachableSituations = (suite: SubjectSuite, capabilities: AdapterCapabilities): ReadonlyArray<string> =>
  (suite.situations ?? []).filter((situation) => (suite.situationNeeds?.[situation] ?? []).every((name) => hasCapability(capabilities, name)))

/**
 * The coverage of each suite that names situations, from the property runs of one adapter with
 * `capabilities` (several seeds' runs add up). A suite none of whose properties applied to the adapter
 * has no coverage row; a situation the adapter cannot reach (`SubjectSuite.situationNeeds`) has no line.
 */
export const situationCoverage = (suites: ReadonlyArray<SubjectSuite>, runs: ReadonlyArray<PropertyRun>, capabilities: AdapterCapabilities): ReadonlyArray<SubjectCoverage> =>
  suites.flatMap((suite) => {
    const names = reachableSituations(suite, capabilities)
    if (names.length === 0) return []
    const propertyIds = new Set(suite.properties.map((property) => property.id))
    const applicable = runs.filter((run) => run.subject === suite.subject && propertyIds.has(run.propertyId) && run.verdict !== "not-applicable")
    if (applicable.length === 0) return []
    const situations = names.map((situation) => ({
      situation,
      scenarios: applicable.reduce((sum, run) => sum + (run.situations?.[situation] ?? 0), 0)
    }))
    return [{ subject: suite.subject, scenarios: applicable.reduce((sum, run) => sum + run.runsExecuted, 0), situations }]
  })

/** Situations reached at least once but fewer than `SITUATION_FLAG_BELOW` times. */
export const flaggedSituations = (coverage: SubjectCoverage): ReadonlyArray<SituationCount> =>
  coverage.situations.filter((count) => count.scenarios > 0 && count.scenarios < SITUATION_FLAG_BELOW)

/** Situations no scenario reached. */
export const unreachedSituations = (coverage: SubjectCoverage): ReadonlyArray<string> =>
  coverage.situations.filter((count) => count.scenarios === 0).map((count) => count.situation)

/**
 * One line per subject: `alarms: 61 of 61 situations reached, 2 fewer than 5 times (parkReportLost 2, ...)`.
 */
export const coverageLine = (coverage: SubjectCoverage): string => {
  const unreached = unreachedSituations(coverage)
  const reached = coverage.situations.length - unreached.length
  const rare = flaggedSituations(coverage)
  const rareText = rare.length === 0 ? "" : `, ${rare.length} fewer than ${SITUATION_FLAG_BELOW} times (${rare.map((count) => `${count.situation} ${count.scenarios}`).join(", ")})`
  const unreachedText = unreached.length === 0 ? "" : `; never reached: ${unreached.join(", ")}`
  return `${coverage.subject}: ${reached} of ${coverage.situations.length} situations reached${rareText}${unreachedText}`
}
