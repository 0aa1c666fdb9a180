/**
 * Realistic `ConformanceReport` fixtures for the report writer tests: one adapter where everything
 * passes (plus a not-applicable requirement), one with a minimized failing counterexample (five steps,
 * an injected crash, a state difference), an unknown (budget exhausted) and an adapter error whose
 * message quotes a connection string with a password that must never reach a report.
 */
import type { AdapterFingerprint } from "../../adapters/contract.ts"
import type { Json, StepRecord } from "../../harness/Property.ts"
import type { AdapterResult, ConformanceReport, Counterexample, RequirementResult, VerdictCounts } from "../../harness/RunResult.ts"

/** The planted secret: no rendered format may contain `PLANTED_PASSWORD`. */
export const PLANTED_CONNECTION_STRING = "postgres://u:secret@h/db"
export const PLANTED_PASSWORD = "secret"

/** The replay token of the failing requirement. */
export const REPLAY_TOKEN = "dc1.eyJwIjoiYWxhcm1zL21vZGVsIiwicyI6MTIzNDUsImEiOiJwb3N0Z3JlcyJ9.Zm9v"

/** 2026-01-01T00:00:00Z: the virtual clock's start in the fixture. */
export const T0_MS = Date.UTC(2026, 0, 1)
const HOUR_MS = 3_600_000

const sqliteFingerprint: AdapterFingerprint = {
  name: "sqlite",
  adapterVersion: "0.1.0",
  engine: "better-sqlite3",
  engineVersion: "3.50.4",
  dialect: "sqlite",
  capabilities: { independentConnections: false, rowLocks: false, snapshotReads: false, savepoints: true, platformAlarm: "emulated" }
}

const postgresFingerprint: AdapterFingerprint = {
  name: "postgres",
  adapterVersion: "0.1.0",
  engine: "PostgreSQL",
  engineVersion: "18.0",
  dialect: "postgres",
  capabilities: { independentConnections: true, rowLocks: true, snapshotReads: true, savepoints: true, platformAlarm: "emulated" }
}

const alarmRow = (runAtMs: number, attempts: number) => ({ runAt: runAtMs, attempts, payload: { to: "ops@example.com" } })

/** The minimized failing scenario's steps: schedule, advance, crash while processing, restart, process again. */
export const failingSteps: ReadonlyArray<StepRecord> = [
  {
    index: 0,
    operation: "scheduleAlarm",
    args: { tag: "email", id: "a1", payload: { to: "ops@example.com" }, runAt: T0_MS + HOUR_MS },
    virtualTimeMs: T0_MS,
    implementation: { ok: true },
    model: { ok: true },
    implementationState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: T0_MS + HOUR_MS },
    modelState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: T0_MS + HOUR_MS }
  },
  {
    index: 1,
    operation: "advanceClock",
    args: { byMs: HOUR_MS },
    virtualTimeMs: T0_MS,
    implementation: null,
    model: null,
    implementationState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: T0_MS + HOUR_MS },
    modelState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: T0_MS + HOUR_MS }
  },
  {
    index: 2,
    operation: "processDueAlarms",
    args: { maxAlarms: 10 },
    virtualTimeMs: T0_MS + HOUR_MS,
    implementation: { error: "InjectedCrash", hook: "afterHandlerRun" },
    model: { error: "InjectedCrash", hook: "afterHandlerRun" },
    fault: "crash at hook afterHandlerRun",
    implementationState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: null },
    modelState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: T0_MS + HOUR_MS }
  },
  {
    index: 3,
    operation: "restart",
    args: {},
    virtualTimeMs: T0_MS + HOUR_MS + 5_000,
    implementation: { rebuilt: true },
    model: { rebuilt: true },
    implementationState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: null },
    modelState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: T0_MS + HOUR_MS }
  },
  {
    index: 4,
    operation: "processDueAlarms",
    args: { maxAlarms: 10, note: "<script>alert(1)</script> & \"quotes\"" },
    virtualTimeMs: T0_MS + 2 * HOUR_MS,
    implementation: { handled: 0, failed: 0, parked: 0 },
    model: { handled: 1, failed: 0, parked: 0 },
    implementationState: { alarms: { "email/a1": alarmRow(T0_MS + HOUR_MS, 0) }, platformAlarm: null },
    modelState: { alarms: {}, platformAlarm: null }
  }
]

const explanation =
  "After the crash at hook afterHandlerRun rolled the transaction back, the model kept the platform alarm at 01:00 so alarm email/a1 runs on the next wake-up, but the implementation had cleared the platform alarm and handled nothing."

/** The minimized counterexample of ALM-002 on `postgres`. */
export const counterexample: Counterexample = {
  propertyId: "alarms/model",
  scenario: { operations: failingSteps.map((step) => ({ op: step.operation, args: step.args })), faults: [{ step: 2, crashAt: "afterHandlerRun" }] },
  trace: {
    steps: failingSteps,
    divergence: {
      requirementId: "ALM-002",
      stepIndex: 4,
      explanation,
      expected: { handled: 1, failed: 0, parked: 0 },
      actual: { handled: 0, failed: 0, parked: 0 }
    },
    covered: ["ALM-001", "ALM-002"]
  },
  divergence: {
    requirementId: "ALM-002",
    stepIndex: 4,
    explanation,
    expected: { handled: 1, failed: 0, parked: 0 },
    actual: { handled: 0, failed: 0, parked: 0 }
  },
  seed: 12345,
  path: "7:1:0:0",
  replayToken: REPLAY_TOKEN,
  runsToDetect: 8,
  shrinkSteps: 14
}

const requirement = (
  id: string,
  title: string,
  verdict: RequirementResult["verdict"],
  reason: string,
  extra: Partial<Pick<RequirementResult, "missingCapabilities" | "counterexample" | "coveredRuns" | "subject">> = {}
): RequirementResult => ({
  requirementId: id,
  subject: extra.subject ?? "alarms",
  title,
  verdict,
  reason,
  propertyIds: [id.startsWith("CNT") ? "content/model" : "alarms/model"],
  coveredRuns: extra.coveredRuns ?? 100,
  ...(extra.missingCapabilities === undefined ? {} : { missingCapabilities: extra.missingCapabilities }),
  ...(extra.counterexample === undefined ? {} : { counterexample: extra.counterexample })
})

const countVerdicts = (adapters: ReadonlyArray<AdapterResult>): VerdictCounts => {
  const counts = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
  for (const adapter of adapters) for (const r of adapter.requirements) counts[r.verdict]++
  return counts
}

/** Builds the fixture report; every call returns an equal, fresh object. */
export const makeReport = (): ConformanceReport => {
  const sqlite: AdapterResult = {
    fingerprint: sqliteFingerprint,
    requirements: [
      requirement("ALM-001", "an alarm runs no earlier than its runAt", "pass", "100 of 100 scenarios reached it; all held"),
      requirement("ALM-002", "a crash never loses a due alarm", "pass", "37 of 100 scenarios reached it; all held", { coveredRuns: 37 }),
      requirement("ALM-003", "retries reset only on strictly increasing progress", "pass", "12 of 100 scenarios reached it; all held", {
        coveredRuns: 12
      }),
      requirement("ALM-004", "competing processors never run one alarm twice", "not-applicable", "The adapter lacks independentConnections, rowLocks.", {
        missingCapabilities: ["independentConnections", "rowLocks"],
        coveredRuns: 0
      }),
      requirement("CNT-001", "a stored blob reads back byte-identical", "pass", "100 of 100 scenarios reached it; all held", {
        subject: "content"
      })
    ],
    properties: [
      {
        propertyId: "alarms/model",
        subject: "alarms",
        adapter: "sqlite",
        seed: 42,
        runsRequested: 100,
        runsExecuted: 100,
        verdict: "pass",
        durationMs: 1834,
        covered: { "ALM-001": 100, "ALM-002": 37, "ALM-003": 12 }
      },
      {
        propertyId: "content/model",
        subject: "content",
        adapter: "sqlite",
        seed: 42,
        runsRequested: 100,
        runsExecuted: 100,
        verdict: "pass",
        durationMs: 912,
        covered: { "CNT-001": 100 }
      }
    ]
  }
  const postgres: AdapterResult = {
    fingerprint: postgresFingerprint,
    requirements: [
      requirement("ALM-001", "an alarm runs no earlier than its runAt", "pass", "100 of 100 scenarios reached it; all held", {
        coveredRuns: 100
      }),
      requirement("ALM-002", "a crash never loses a due alarm", "fail", `${explanation} (failed in 3 of 3 scenarios that reached it)`, { counterexample, coveredRuns: 3 }),
      requirement(
        "ALM-003",
        "retries reset only on strictly increasing progress",
        "unknown",
        "reached by 0 of 100 scenarios",
        { coveredRuns: 0 }
      ),
      requirement("ALM-004", "competing processors never run one alarm twice", "pass", "5 of 100 scenarios reached it; all held", { coveredRuns: 5 }),
      requirement(
        "CNT-001",
        "a stored blob reads back byte-identical",
        "error",
        `The adapter failed: could not connect to ${PLANTED_CONNECTION_STRING} (connection refused). Start the server or set DATABASE_URL.`,
        { subject: "content", coveredRuns: 0 }
      )
    ],
    properties: [
      {
        propertyId: "alarms/model",
        subject: "alarms",
        adapter: "postgres",
        seed: 42,
        runsRequested: 100,
        runsExecuted: 100,
        verdict: "fail",
        durationMs: 5210,
        covered: { "ALM-001": 100, "ALM-002": 3, "ALM-004": 5 },
        counterexamples: [counterexample],
        knownFailures: { "ALM-002": 2 }
      },
      {
        propertyId: "content/model",
        subject: "content",
        adapter: "postgres",
        seed: 42,
        runsRequested: 100,
        runsExecuted: 0,
        verdict: "error",
        durationMs: 30_000,
        covered: {},
        error: { message: `could not connect to ${PLANTED_CONNECTION_STRING}: connection refused`, hint: "Start the server or set DATABASE_URL." }
      }
    ]
  }
  const adapters = [sqlite, postgres]
  return {
    schemaVersion: 2,
    kind: "run",
    suite: { name: "durable-conformance", version: "0.1.0", hash: "9f2c4b1e0d3a5f6e7b8c9d0a1b2c3d4e5f60718293a4b5c6d7e8f90123456789" },
    harnessVersion: "0.1.0",
    startedAt: "2026-11-29T17:00:00.000Z",
    finishedAt: "2026-11-29T17:00:37.956Z",
    environment: { node: "v20.20.0", platform: "linux", arch: "x64", ci: false },
    options: { subjects: ["alarms", "content"], adapters: ["sqlite", "postgres"], runs: 100, seed: 42 },
    adapters,
    summary: countVerdicts(adapters)
  }
}

/** `report` with `alsoExpected` (values another allowed choice predicted) on every counterexample's divergence. */
export const withAlsoExpected = (report: ConformanceReport, alsoExpected: ReadonlyArray<Json>): ConformanceReport => ({
  ...report,
  adapters: report.adapters.map((adapter) => ({
    ...adapter,
    requirements: adapter.requirements.map((result) =>
      result.counterexample === undefined ? result : { ...result, counterexample: { ...result.counterexample, divergence: { ...result.counterexample.divergence, alsoExpected } } }
    )
  }))
})
