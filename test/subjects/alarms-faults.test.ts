/**
 * Storage-boundary faults against the shipped alarms scheduler, with no hook point involved: a crash
 * inside a schedule's transaction rolls it back (a rebuilt scheduler sees the old state); a crash right
 * after the failure reschedule commits loses the park report but never duplicates it; a crash inside a
 * handler's own transaction ends the process (no failure path, no acknowledgement), even when the
 * handler catches everything; a lost reply keeps the commit and fails the call with no report.
 */
import { Cause, Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { StorageFault } from "../../harness/Faults.ts"
import type { BoundedOutcome } from "../../harness/StorageBoundary.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import { SCHEDULED_TABLE } from "../../subjects/alarms/schema.ts"
import type { AlarmsFixture } from "./alarmsSupport.ts"
import { at, platformAlarmRel, rel, runAlarms, setTime } from "./alarmsSupport.ts"

const ref = (id: string) => ({ tag: "job", id })

/** Runs `operation` through the fixture's storage boundary with `fault` armed. */
const faulted = <A, E>(f: AlarmsFixture, fault: StorageFault, operation: Effect.Effect<A, E>): Effect.Effect<BoundedOutcome<A, E>> =>
  Effect.suspend(() => {
    f.boundary.arm(fault)
    return Effect.ensuring(f.boundary.run(operation), Effect.sync(() => f.boundary.arm(undefined)))
  })

const crashOf = <A, E>(outcome: BoundedOutcome<A, E>) => (outcome._tag === "Crashed" ? outcome.crash : null)

describe("alarms under storage-boundary faults", () => {
  it("rolls back a schedule crashed inside its transaction; a rebuilt scheduler sees the old state", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(5_000) })
        const outcome = yield* faulted(f, { transaction: 1, phase: "inside" }, f.alarms.scheduleAlarm({ ...ref("a"), payload: 2, runAt: at(1_000) }))
        const rebuilt = yield* f.restart
        return {
          crash: crashOf(outcome),
          status: yield* rebuilt.getAlarmStatus(ref("a")),
          payload: (yield* f.sql<{ readonly payload: string }>`SELECT payload FROM ${f.sql.literal(SCHEDULED_TABLE)}`)[0]?.payload,
          platform: yield* platformAlarmRel(f)
        }
      }))
    expect(result.crash).toEqual({ transaction: 1, phase: "inside" })
    expect(rel(result.status?.runAt)).toBe(5_000)
    expect(result.payload).toBe("1")
    expect(result.platform).toBe(5_000)
  })

  it("loses, never duplicates, a park report when crashing right after the parking commit", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        // Budget 1: the failure reschedule (transaction 1 of the dispatch) parks the alarm.
        const outcome = yield* faulted(f, { transaction: 1, phase: "afterCommit" }, f.alarms.processDueAlarms(() => Effect.fail("x")))
        const rebuilt = yield* f.restart
        const status = yield* rebuilt.getAlarmStatus(ref("a"))
        yield* setTime(3_600_000)
        const later = yield* rebuilt.processDueAlarms(() => Effect.fail("x"))
        return { crash: crashOf(outcome), status, reports: f.reports.length, laterParked: later.parked.length }
      }), { configuration: { unchangedAttemptBudget: 1 } })
    expect(result.crash).toEqual({ transaction: 1, phase: "afterCommit" })
    expect(result.status?.parked).toBe(true)
    expect(result.reports).toBe(0)
    expect(result.laterParked).toBe(0)
  })

  it.each([
    ["lets its errors fail the handler", false],
    ["catches every error and defect itself", true]
  ])("treats a crash inside a handler's own transaction as the end of the process when the handler %s", async (_, catchesAll) => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const rearm = f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(9_000) })
        const handler = () => (catchesAll ? Effect.catchCause(rearm, () => Effect.void) : rearm)
        const outcome = yield* faulted(f, { transaction: 1, phase: "inside" }, f.alarms.processDueAlarms(handler))
        return { crash: crashOf(outcome), status: yield* (yield* f.restart).getAlarmStatus(ref("a")) }
      }))
    expect(result.crash).toEqual({ transaction: 1, phase: "inside" })
    // Neither the self-rearm, nor a failure reschedule, nor an acknowledgement committed.
    expect(result.status).toMatchObject({ attempts: 0, parked: false, retryAt: undefined })
    expect(rel(result.status?.runAt)).toBe(0)
  })

  it("keeps a commit whose reply was lost, fails the call, and sends no park report", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const outcome = yield* faulted(f, { transaction: 1, phase: "lostReply" }, f.alarms.processDueAlarms(() => Effect.fail("x")))
        return {
          error: outcome._tag === "Completed" && outcome.exit._tag === "Failure" ? (Cause.squash(outcome.exit.cause) as { _tag?: string })._tag : null,
          status: yield* f.alarms.getAlarmStatus(ref("a")),
          reports: f.reports.length
        }
      }), { configuration: { unchangedAttemptBudget: 1 } })
    expect(result.error).toBe("StorageOperationError")
    expect(result.status).toMatchObject({ attempts: 1, parked: true })
    expect(result.reports).toBe(0)
  })
})
