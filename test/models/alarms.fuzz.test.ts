/**
 * Random operation sequences never break the model's own invariants: rows stay consistent, the
 * platform alarm equals the smallest wake, reports only come from new parked episodes.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { init, type Operation, platformAlarmFor, step } from "../../models/alarms/index.ts"

const id = fc.constantFrom("a", "b", "c")
const input = fc.record({
  tag: fc.constant("t"),
  id,
  payload: fc.integer({ min: 0, max: 3 }),
  runAtMs: fc.integer({ min: 0, max: 200_000 }),
  progress: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined })
}).map(({ progress, ...rest }) => (progress === undefined ? rest : { ...rest, progress }))
const mutation = fc.oneof(
  input.map((i) => ({ kind: "scheduleAlarm" as const, input: i })),
  input.map((i) => ({ kind: "scheduleAlarmEarlier" as const, input: i })),
  id.map((i) => ({ kind: "cancelAlarm" as const, ref: { tag: "t", id: i } }))
)
const script = fc.record({
  writes: fc.array(mutation, { maxLength: 2 }),
  outcome: fc.constantFrom("succeed" as const, "fail" as const),
  onFailure: fc.constantFrom({ kind: "none" as const }, { kind: "skipAndAdvanceRepeat" as const }, { kind: "fails" as const })
})
const operation = (nowMs: number): fc.Arbitrary<Operation> =>
  fc.oneof(
    mutation.map((m): Operation => (m.kind === "cancelAlarm" ? { kind: "cancelAlarm", nowMs, ref: m.ref } : { kind: m.kind, nowMs, input: m.input })),
    fc.record({ a: script, b: script, c: script, limit: fc.integer({ min: 1, max: 3 }) }).map((s): Operation => ({
      kind: "processDueAlarms",
      nowMs,
      options: { limit: s.limit },
      handlers: [{ tag: "t", id: "a", script: s.a }, { tag: "t", id: "b", script: s.b }, { tag: "t", id: "c", script: s.c }]
    })),
    fc.integer({ min: 1, max: 10 }).map((budget): Operation => ({ kind: "configure", configuration: { unchangedAttemptBudget: budget } }))
  )

describe("model self-consistency under random sequences", () => {
  it("keeps the platform alarm equal to the smallest wake and keeps the reporter log consistent", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_000_000 }), { maxLength: 40 }).chain((deltas) =>
        fc.tuple(...deltas.map((delta) => operation(delta)))
      ), (ops) => {
        let state = init({ configuration: { unchangedAttemptBudget: 3 } })
        let nowMs = 0
        for (const raw of ops) {
          nowMs += "nowMs" in raw ? raw.nowMs : 0
          const op = "nowMs" in raw ? { ...raw, nowMs } : raw
          const reportsBefore = state.reporterLog.length
          const outcome = step(state, op as Operation)
          state = outcome.state
          expect(state.platformAlarmMs).toBe(platformAlarmFor(state.rows))
          for (const tx of outcome.transactions) expect(["committed", "rolledBack"]).toContain(tx.outcome)
          expect(state.reporterLog.length).toBe(reportsBefore + outcome.reporterCalls.length)
          for (const call of outcome.reporterCalls) expect(call.attempts).toBeGreaterThanOrEqual(1)
          for (const row of Object.values(state.rows)) {
            const attempts = row.attemptsRow
            if (attempts !== null && attempts.attempts > 0) expect(attempts.retryAtMs).toBeGreaterThan(0)
          }
        }
      }
    ), { numRuns: 300, seed: 42 })
  })
})
