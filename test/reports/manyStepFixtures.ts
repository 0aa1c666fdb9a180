/**
 * A failing report for the readability tests: a many-step alarms counterexample (41 steps in bursts of
 * operations that share a virtual instant, a crash, a divergence at the end) and the adapter
 * contract's counterexample whose steps all happen at one instant, copied from a real run of the
 * non-conforming example adapter (its model writes `exit: "failure"` where the implementation records
 * `{ error, message }`).
 */
import type { StepRecord } from "../../harness/Property.ts"
import type { ConformanceReport, Counterexample, RequirementResult } from "../../harness/RunResult.ts"
import { makeReport, T0_MS } from "./fixtures.ts"

const MINUTE_MS = 60_000

/** Bursts of the many-step counterexample: operations that run before the clock moves again. */
const BURSTS = 8

const row = (runAtMs: number, attempts: number) => ({ runAt: runAtMs, attempts, repeatEveryMs: null, progress: null })

/** The 41 steps of the many-step counterexample: eight bursts of five operations, then the divergent wake-up. */
export const manySteps = (): ReadonlyArray<StepRecord> => {
  const steps: Array<StepRecord> = []
  const alarms: Record<string, ReturnType<typeof row>> = {}
  for (let burst = 0; burst < BURSTS; burst++) {
    const atMs = T0_MS + burst * 15 * MINUTE_MS
    const operations = ["scheduleAlarm", "scheduleAlarmEarlier", "getAlarmStatus", "processDueAlarms", "advanceClock"]
    for (const [offset, operation] of operations.entries()) {
      const id = `email/a${burst}`
      if (operation === "scheduleAlarm") alarms[id] = row(atMs + 20 * MINUTE_MS, 0)
      if (operation === "scheduleAlarmEarlier") alarms[id] = row(atMs + 10 * MINUTE_MS, 0)
      const crash = burst === 4 && operation === "processDueAlarms"
      const state = { alarms: { ...alarms }, platformAlarm: atMs + 10 * MINUTE_MS }
      steps.push({
        index: steps.length,
        operation,
        args: operation === "advanceClock" ? { byMs: 15 * MINUTE_MS } : { tag: "email", id: `a${burst}`, offset },
        virtualTimeMs: atMs,
        implementation: operation === "processDueAlarms" ? { handled: burst === 0 ? 0 : 1, failed: 0, parked: 0 } : { ok: null },
        model: operation === "processDueAlarms" ? { handled: burst === 0 ? 0 : 1, failed: 0, parked: 0 } : { ok: null },
        ...(crash ? { fault: "crash after commit 1 of processDueAlarms" } : {}),
        implementationState: state,
        modelState: state
      })
    }
  }
  const lastMs = T0_MS + BURSTS * 15 * MINUTE_MS
  steps.push({
    index: steps.length,
    operation: "processDueAlarms",
    args: { maxAlarms: 10 },
    virtualTimeMs: lastMs,
    implementation: { handled: 0, failed: 0, parked: 0 },
    model: { handled: 2, failed: 0, parked: 0 },
    implementationState: { alarms: { ...alarms }, platformAlarm: null },
    modelState: { alarms: {}, platformAlarm: null }
  })
  return steps
}

const counterexampleOf = (propertyId: string, steps: ReadonlyArray<StepRecord>, requirementId: string, explanation: string, expected: unknown, actual: unknown): Counterexample => {
  const divergence = { requirementId, stepIndex: steps.length - 1, explanation, expected, actual } as Counterexample["divergence"]
  return {
    propertyId,
    scenario: null,
    trace: { steps, divergence, covered: [requirementId] },
    divergence,
    seed: 7,
    path: "3:1:0",
    replayToken: `dc1.fixture-${requirementId}.00000000`,
    runsToDetect: 5,
    shrinkSteps: 9
  }
}

/** The adapter contract's counterexample of ADP-001 from a real run: four steps at one instant. */
export const instantSteps: ReadonlyArray<StepRecord> = [
  { index: 0, operation: "createTable", args: "CREATE TABLE adp_tx (k TEXT PRIMARY KEY, v BIGINT NOT NULL)", virtualTimeMs: T0_MS, implementation: { ok: [] }, model: { ok: [] } },
  { index: 1, operation: "commitBaseline", args: [["k0", 2147483648]], virtualTimeMs: T0_MS, implementation: [["k0", -2147483648]], model: [["k0", 2147483648]] },
  { index: 2, operation: "injectFailure", args: { at: 0, kind: "fail" }, virtualTimeMs: T0_MS, implementation: null, model: null, fault: "fail before statement 0" },
  {
    index: 3,
    operation: "endTransaction",
    args: { failure: { at: 0, kind: "fail" } },
    virtualTimeMs: T0_MS,
    implementation: { exit: { error: "ScenarioFailure", message: "scenario failure inside the transaction" }, rows: [["k0", -2147483648]] },
    model: { exit: "failure", rows: [["k0", 2147483648]] }
  }
]

const failing = (id: string, title: string, propertyId: string, counterexample: Counterexample): RequirementResult => ({
  requirementId: id,
  subject: id.startsWith("ADP") ? "adapter" : "alarms",
  title,
  verdict: "fail",
  reason: `${counterexample.divergence.explanation} (failed in 4 of 19 scenarios that reached it)`,
  propertyIds: [propertyId],
  coveredRuns: 19,
  counterexample
})

/** The base fixture report with two more failures on postgres: the many-step one and the one-instant one. */
export const makeManyStepReport = (): ConformanceReport => {
  const base = makeReport()
  const many = counterexampleOf("alarms/model", manySteps(), "ALM-021", "The model dispatches the two due alarms on this wake-up; the implementation handled none and cleared the platform alarm.", { handled: 2 }, { handled: 0 })
  const instant = counterexampleOf("adapter/transactions", instantSteps, "ADP-001", "The transaction failed (fail before statement 0), so the table must hold exactly its rows from before the transaction, [[\"k0\",2147483648]]; it holds [[\"k0\",-2147483648]].", [["k0", 2147483648]], [["k0", -2147483648]])
  const postgres = base.adapters[1]!
  const requirements = [
    ...postgres.requirements,
    failing("ALM-021", "dispatch selection and order", "alarms/model", many),
    failing("ADP-001", "a failed transaction keeps none of its writes", "adapter/transactions", instant)
  ]
  const adapters = [base.adapters[0]!, { ...postgres, requirements }]
  return { ...base, adapters, summary: { ...base.summary, fail: base.summary.fail + 2 } }
}
