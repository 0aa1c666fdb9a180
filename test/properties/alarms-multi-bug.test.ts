/**
 * An alarms implementation with three independent bugs, each a piece swap of a known-bad variant
 * (test/known-bad/alarms), run like the gate on sqlite (`runConformance`, DEFAULT_RUNS scenarios per
 * property, DEFAULT_SEED): all three requirements fail, each with its own minimized counterexample that
 * replays to a divergence on that requirement.
 * - h2-fixed-retry: failures retry every 30 s forever (planFailureRetry) -> ALM-044;
 * - h6-platform-alarm-run-at: the platform alarm is the smallest run_at (reconcile) -> ALM-006;
 * - h4-detached-after-pass: a forked fiber schedules after its pass (passAllowsSchedule) -> ALM-009.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { sqliteAdapter, makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { runConformance } from "../../harness/Conformance.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { failedRequirementIds } from "../../harness/RunResult.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { makeAlarmScheduler } from "../../subjects/alarms/make.ts"
import { type AlarmPieces, defaultAlarmPieces } from "../../subjects/alarms/pieces.ts"
import { SCHEDULED_TABLE } from "../../subjects/alarms/schema.ts"
import { FIXED_RETRY_DELAY_MS } from "../known-bad/alarms/h2-fixed-retry.ts"
import { propertyById } from "../../harness/Suite.ts"

/** The three swapped pieces, as in the single-bug known-bad variants. */
const threeBugs: Partial<AlarmPieces> = {
  // h2-fixed-retry (R2, R14, R25)
  planFailureRetry: (row, input) => ({ attempts: row.attempts + 1, parked: false, retryAtMs: input.nowMs + FIXED_RETRY_DELAY_MS, runAtMs: row.runAtMs }),
  // h6-platform-alarm-run-at (R6)
  reconcile: (runtime) => {
    const sql = runtime.store.sql
    return sql<{ readonly run_at: unknown }>`SELECT run_at FROM ${sql.literal(SCHEDULED_TABLE)} ORDER BY run_at, storage_id LIMIT 1`.pipe(
      Effect.flatMap((rows) => (rows[0] === undefined ? runtime.platformAlarm.delete : runtime.platformAlarm.set(Number(rows[0].run_at))))
    )
  },
  // h4-detached-after-pass (R5, R9)
  passAllowsSchedule: () => true
}

const implementation: AlarmsImplementation = {
  name: "multi-bug/h2+h6+h4",
  make: makeAlarmScheduler({ ...defaultAlarmPieces, ...threeBugs })
}

/** The requirement each bug's single-bug variant is reported as (test/known-bad/alarms/expectations.ts). */
const EXPECTED_FAILURES = ["ALM-006", "ALM-009", "ALM-044"] as const

describe("an alarms implementation with three independent bugs", () => {
  it("fails all three requirements, each with its own minimized, replayable counterexample", async () => {
    const suite = alarmsSuite(implementation)
    const report = await Effect.runPromise(
      runConformance({ kind: "run", adapters: [sqliteAdapter], suites: [suite], runs: DEFAULT_RUNS, seed: DEFAULT_SEED, suiteHash: "unhashed" })
    )
    const [sqlite] = report.adapters
    const failed = sqlite!.requirements.filter((requirement) => requirement.verdict === "fail")
    console.log(failed.map((r) => `${r.requirementId}: ${r.counterexample?.trace.steps.length ?? "-"} steps (${r.counterexample?.propertyId ?? "-"}) ${r.reason}`).join("\n"))
    const failedIds = failed.map((requirement) => requirement.requirementId)
    expect(failedIds).toEqual(expect.arrayContaining([...EXPECTED_FAILURES]))
    for (const run of sqlite!.properties) expect(run.runsExecuted, run.propertyId).toBe(DEFAULT_RUNS)
    // Not one counterexample per property: a single property run finds all three bugs.
    const perProperty = sqlite!.properties.map((run) => failedRequirementIds(run))
    console.log(sqlite!.properties.map((run, index) => `${run.propertyId}: ${perProperty[index]!.join(", ")}`).join("\n"))
    expect(perProperty.some((ids) => EXPECTED_FAILURES.every((id) => ids.includes(id)))).toBe(true)
    const adapter = makeSqliteAdapter()
    for (const id of EXPECTED_FAILURES) {
      const counterexample = failed.find((requirement) => requirement.requirementId === id)?.counterexample
      expect(counterexample?.divergence.requirementId, id).toBe(id)
      // Minimized: each single-bug variant's bound on counterexample steps is 5 at most.
      expect(counterexample!.trace.steps.length, id).toBeLessThanOrEqual(5)
      const property = propertyById(suite, counterexample!.propertyId)
      const trace = await Effect.runPromise(executeScenario(property, adapter, counterexample!.scenario))
      expect(trace.divergence?.requirementId, id).toBe(id)
      expect(trace.divergence?.stepIndex, id).toBe(counterexample!.divergence.stepIndex)
    }
    const tokens = new Set(EXPECTED_FAILURES.map((id) => failed.find((requirement) => requirement.requirementId === id)?.counterexample?.replayToken))
    expect(tokens.size).toBe(EXPECTED_FAILURES.length)
  })
})
